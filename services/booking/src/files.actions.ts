/**
 * case/files: uploads kept on disk (FILES_DIR) or as a url, listed in `orderData.files`, and
 * served back through `case/file` to the parties of the case. The upload and its
 * `case.filesUploaded` event commit together; bytes written for a failed upload are removed.
 */
import type { Context, ServiceActionsSchema } from 'moleculer';
import { ACCESS, type CallerMeta, callerOf, configOf, DOMAIN_EVENTS, FieldsValidationError, inTransaction, NotFoundError, writeEvent } from '@hub/shared';
import { assertNotCancelled, caseRowFor, GUID_PARAM, otherParty } from './case-access';
import { type FileIn, fileUrlOf, MAX_FILES_PER_UPLOAD, prepareFiles, readStoredFile, removeStoredFiles, storeFile } from './case-files';
import type { BookingThis } from './booking.types';

export interface UploadFilesParams {
  guid: string;
  files: FileIn[];
}
export interface DownloadFileParams {
  guid: string;
  id: number;
}

interface FileRow {
  id: number;
  name: string;
  storage_key: string | null;
  content_type: string | null;
}

type FileMeta = CallerMeta & { $responseType?: string };

export const fileActions: ServiceActionsSchema = {
  uploadFiles: {
    rest: 'POST /v3/case/files',
    access: ACCESS.PARTNER_PROVIDER,
    // The gateway reads this body with UPLOAD_BODY_LIMIT instead of BODY_LIMIT.
    largeBody: true,
    params: {
      guid: GUID_PARAM,
      files: {
        type: 'array',
        min: 1,
        max: MAX_FILES_PER_UPLOAD,
        items: {
          type: 'object',
          props: {
            name: 'string|min:1|max:255',
            url: { type: 'string', optional: true, nullable: true, max: 2048 },
            data: { type: 'string', optional: true, nullable: true },
            type: { type: 'string', optional: true, nullable: true, max: 64 },
          },
        },
      },
    },
    async handler(this: BookingThis, ctx: Context<UploadFilesParams, CallerMeta>) {
      const caller = callerOf(ctx);
      const { filesDir, fileMaxBytes } = configOf(this.broker);
      const { details, prepared } = prepareFiles(ctx.params.files, fileMaxBytes);
      if (Object.keys(details).length) throw new FieldsValidationError(details);
      assertNotCancelled(await caseRowFor(this.db.knex, caller, ctx.params.guid));

      const keys: Array<string | null> = [];
      try {
        for (const file of prepared) keys.push(file.bytes ? await storeFile(filesDir, ctx.params.guid.toLowerCase(), file) : null);
        await inTransaction(this.db.knex, async (trx) => {
          const row = await caseRowFor(trx, caller, ctx.params.guid, true);
          assertNotCancelled(row);
          const entries: Array<{ url: string; name: string; type: string }> = [];
          for (const [index, file] of prepared.entries()) {
            const [{ id }] = (await trx('booking.case_files')
              .insert({
                case_id: row.id,
                name: file.name,
                type: file.type,
                url: file.url ?? null,
                storage_key: keys[index],
                content_type: file.contentType,
                size: file.bytes?.length ?? null,
                uploaded_by: caller.role,
              })
              .returning('id')) as Array<{ id: number }>;
            entries.push({ url: file.url ?? fileUrlOf(row.guid, id), name: file.name, type: file.type });
          }
          const listed = Array.isArray(row.order_data.files) ? (row.order_data.files as unknown[]) : [];
          await trx('booking.cases')
            .where({ id: row.id })
            .update({ order_data: JSON.stringify({ ...row.order_data, files: [...listed, ...entries] }), updated_at: trx.fn.now() });
          await writeEvent(trx, 'booking', {
            type: DOMAIN_EVENTS.CASE_FILES_UPLOADED,
            caseGuid: row.guid,
            audience: otherParty(caller, row),
            payload: { guid: row.guid, files: entries },
          });
        });
      } catch (err) {
        await removeStoredFiles(filesDir, keys.filter((key): key is string => key !== null));
        throw err;
      }
      this.relayOutbox();
      return { data: { result: true } };
    },
  },

  downloadFile: {
    rest: 'GET /v3/case/file',
    access: ACCESS.PARTNER_PROVIDER,
    params: { guid: GUID_PARAM, id: 'number|integer|positive' },
    async handler(this: BookingThis, ctx: Context<DownloadFileParams, FileMeta>) {
      const row = await caseRowFor(this.db.knex, callerOf(ctx), ctx.params.guid);
      const file = (await this.db.knex('booking.case_files').where({ id: ctx.params.id, case_id: row.id }).first()) as FileRow | undefined;
      // A file sent as a url has no bytes here: its url is where it lives.
      if (!file?.storage_key) throw new NotFoundError('File not found');
      const bytes = await readStoredFile(configOf(this.broker).filesDir, file.storage_key);
      ctx.meta.$responseType = file.content_type ?? 'application/octet-stream';
      ctx.meta.$responseHeaders = { 'Content-Disposition': `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"` };
      return bytes;
    },
  },
};
