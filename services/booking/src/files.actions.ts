/**
 * case/files: uploads kept on disk (FILES_DIR) or as a url, listed in `orderData.files`, and
 * served back through `case/file` to the parties of the case; `shipping/label` answers the
 * case's latest uploaded `shipmentLabel` file. The upload and its `case.filesUploaded` event
 * commit together; bytes written for a failed upload are removed.
 */
import type { ActionSchema, Context } from 'moleculer';
import {
  ACCESS,
  type CallerMeta,
  callerOf,
  configOf,
  DOMAIN_EVENTS,
  FieldsValidationError,
  inTransaction,
  keepIdempotentAnswer,
  NotFoundError,
  type ParamsOf,
  writeEvent,
  DATA_RESULT,
} from '@hub/shared';
import { assertNotCancelled, caseRowFor, GUID_PARAM, otherParty } from './case-access';
import {
  fileUrlOf,
  MAX_FILES_PER_UPLOAD,
  SHIPMENT_LABEL,
  prepareFiles,
  readStoredFile,
  removeStoredFiles,
  storeFile,
} from './case-files';
import type { Json } from './case-diff';
import { recordHistory } from './history.store';
import type { BookingThis } from './booking.types';
import { CASE_FILE, SHIPPING_LABEL } from './responses';

const UPLOAD_FILES_PARAMS = {
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
} as const;
const SHIPPING_LABEL_PARAMS = { guid: GUID_PARAM } as const;
const DOWNLOAD_FILE_PARAMS = { guid: GUID_PARAM, id: 'number|integer|positive' } as const;
export type UploadFilesParams = ParamsOf<typeof UPLOAD_FILES_PARAMS>;
export type ShippingLabelParams = ParamsOf<typeof SHIPPING_LABEL_PARAMS>;
export type DownloadFileParams = ParamsOf<typeof DOWNLOAD_FILE_PARAMS>;

interface FileRow {
  id: number;
  name: string;
  storage_key: string | null;
  content_type: string | null;
}

type FileMeta = CallerMeta & { $responseType?: string };

export const fileActions: Record<string, ActionSchema<BookingThis>> = {
  uploadFiles: {
    rest: 'POST /v3/case/files',
    access: ACCESS.PARTNER_PROVIDER,
    summary: 'Attach files to a case',
    description:
      'Each file is sent as base64 `data` (kept by the hub, read back at case/file) or as a `url`, with a `type` (`proofOfPurchase`, `shipmentLabel`, `other`, ...). The files join `orderData.files`; the other party gets a webhook.',
    response: DATA_RESULT,
    // The gateway reads this body with UPLOAD_BODY_LIMIT instead of BODY_LIMIT.
    largeBody: true,
    params: UPLOAD_FILES_PARAMS,
    async handler(this: BookingThis, ctx: Context<UploadFilesParams, CallerMeta>) {
      const caller = callerOf(ctx);
      const { filesDir, fileMaxBytes } = configOf(this.broker);
      const { details, prepared } = prepareFiles(ctx.params.files, fileMaxBytes);
      if (Object.keys(details).length) throw new FieldsValidationError(details);
      assertNotCancelled(await caseRowFor(this.db.knex, caller, ctx.params.guid));

      const answer = { data: { result: true } };
      const keys: Array<string | null> = [];
      try {
        for (const file of prepared)
          keys.push(file.bytes ? await storeFile(filesDir, ctx.params.guid.toLowerCase(), file) : null);
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
          const listed = Array.isArray(row.order_data.files) ? (row.order_data.files as Json[]) : null;
          const files = [...(listed ?? []), ...entries];
          await trx('booking.cases')
            .where({ id: row.id })
            .update({ order_data: JSON.stringify({ ...row.order_data, files }), updated_at: trx.fn.now() });
          await recordHistory(trx, caller, row.id, 'filesUploaded', [
            { field: 'orderData.files', before: listed, after: files },
          ]);
          await writeEvent(trx, 'booking', {
            type: DOMAIN_EVENTS.CASE_FILES_UPLOADED,
            caseGuid: row.guid,
            audience: otherParty(caller, row),
            payload: { guid: row.guid, files: entries },
          });
          await keepIdempotentAnswer(trx, ctx, answer);
        });
      } catch (err) {
        await removeStoredFiles(
          filesDir,
          keys.filter((key): key is string => key !== null),
        );
        throw err;
      }
      this.relayOutbox();
      return answer;
    },
  },

  /**
   * The documented shipping label: base64 of the case's latest `shipmentLabel` file whose bytes
   * the hub keeps. A label sent only as a url is not fetched: its url is in `orderData.files`.
   */
  shippingLabel: {
    rest: 'GET /v3/shipping/label',
    access: ACCESS.PARTNER_PROVIDER,
    summary: "The case's shipping label, base64 encoded",
    response: SHIPPING_LABEL,
    description:
      'Answers `{ data: <base64> }`: the latest file of type `shipmentLabel` uploaded to the case through `case/files` with its content. 404 when the case has none.',
    params: SHIPPING_LABEL_PARAMS,
    async handler(this: BookingThis, ctx: Context<ShippingLabelParams, CallerMeta>) {
      const row = await caseRowFor(this.db.knex, callerOf(ctx), ctx.params.guid);
      const label = (await this.db
        .knex('booking.case_files')
        .where({ case_id: row.id, type: SHIPMENT_LABEL })
        .whereNotNull('storage_key')
        .orderBy('id', 'desc')
        .first()) as FileRow | undefined;
      if (!label?.storage_key) throw new NotFoundError('The case has no shipping label');
      const bytes = await readStoredFile(configOf(this.broker).filesDir, label.storage_key);
      return { data: bytes.toString('base64') };
    },
  },

  downloadFile: {
    rest: 'GET /v3/case/file',
    access: ACCESS.PARTNER_PROVIDER,
    summary: 'A file of a case',
    description:
      'The bytes of a file uploaded as `data`, by its `id` in `orderData.files`; a file sent as a url lives at its url (404 here).',
    response: CASE_FILE,
    params: DOWNLOAD_FILE_PARAMS,
    async handler(this: BookingThis, ctx: Context<DownloadFileParams, FileMeta>) {
      const row = await caseRowFor(this.db.knex, callerOf(ctx), ctx.params.guid);
      const file = (await this.db.knex('booking.case_files').where({ id: ctx.params.id, case_id: row.id }).first()) as
        FileRow | undefined;
      // A file sent as a url has no bytes here: its url is where it lives.
      if (!file?.storage_key) throw new NotFoundError('File not found');
      const bytes = await readStoredFile(configOf(this.broker).filesDir, file.storage_key);
      ctx.meta.$responseType = file.content_type ?? 'application/octet-stream';
      ctx.meta.$responseHeaders = {
        'Content-Disposition': `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"`,
      };
      return bytes;
    },
  },
};
