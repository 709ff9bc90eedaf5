/**
 * Case files: what an upload may carry (the documented extensions and FileType values, base64
 * data within the size limit or a url kept as given) and where the bytes are kept on disk.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { FIELD_MESSAGES, type FieldDetails } from '@hub/shared';

export const FILE_TYPES = [
  'proofOfPurchase',
  'proofOfDamage',
  'transportDamage',
  'claim',
  'report',
  'shipmentLabel',
  'other',
] as const;
export type FileType = (typeof FILE_TYPES)[number];
/** The type of the file `shipping/label` answers. */
export const SHIPMENT_LABEL: FileType = 'shipmentLabel';

/** The accepted extensions and the content type each file is served with. */
export const FILE_EXTENSIONS: Record<string, string> = {
  pdf: 'application/pdf',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  heic: 'image/heic',
  webp: 'image/webp',
  txt: 'text/plain',
  csv: 'text/csv',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  eml: 'message/rfc822',
  msg: 'application/vnd.ms-outlook',
  zip: 'application/zip',
  // The rest of the product's documented list: OpenDocument text and the video formats.
  odt: 'application/vnd.oasis.opendocument.text',
  avi: 'video/x-msvideo',
  mp4: 'video/mp4',
  m4v: 'video/x-m4v',
  mov: 'video/quicktime',
  wmv: 'video/x-ms-wmv',
  mpg: 'video/mpeg',
  mpeg: 'video/mpeg',
  mpe: 'video/mpeg',
  mpv: 'video/mpv',
  m2v: 'video/mpeg',
  mp2: 'video/mpeg',
  mkv: 'video/x-matroska',
  '3gp': 'video/3gpp',
};

/** Most files one upload may carry. */
export const MAX_FILES_PER_UPLOAD = 20;

export interface FileIn {
  name: string;
  url?: string | null;
  data?: string | null;
  type?: string | null;
}

export interface PreparedFile {
  name: string;
  type: FileType;
  contentType: string;
  extension: string;
  url?: string;
  bytes?: Buffer;
}

export function fileTypeOf(type: string | null | undefined): FileType {
  return (FILE_TYPES as readonly string[]).includes(type ?? '') ? (type as FileType) : 'other';
}

export function extensionOf(name: string): string | null {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(name.trim());
  return match ? match[1].toLowerCase() : null;
}

// One character class, not a repeated group: V8 runs a repeated group's regexp on its stack, which
// a file of a few megabytes overflows.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded bytes of base64 text (a `data:...;base64,` prefix allowed), or null when it is not base64. */
export function decodeBase64(data: string): Buffer | null {
  const text = data.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
  return text.length > 0 && text.length % 4 === 0 && BASE64.test(text) ? Buffer.from(text, 'base64') : null;
}

function isHttpUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The files checked one by one; every failure is named by its index. */
export function prepareFiles(files: FileIn[], maxBytes: number): { details: FieldDetails; prepared: PreparedFile[] } {
  const details: FieldDetails = {};
  const fail = (field: string, message: string) => (details[field] ??= []).push(message);
  const prepared: PreparedFile[] = [];
  files.forEach((file, index) => {
    const at = `files[${index}]`;
    const extension = extensionOf(file.name);
    const contentType = extension ? FILE_EXTENSIONS[extension] : undefined;
    if (!extension || !contentType)
      fail(`${at}.name`, `File extension must be one of ${Object.keys(FILE_EXTENSIONS).join(', ')}`);
    const hasUrl = file.url !== undefined && file.url !== null && file.url !== '';
    const hasData = file.data !== undefined && file.data !== null && file.data !== '';
    if (hasUrl && hasData) fail(`${at}.data`, FIELD_MESSAGES.notAccepted);
    else if (!hasUrl && !hasData) fail(`${at}.url`, FIELD_MESSAGES.required);
    let bytes: Buffer | undefined;
    if (hasUrl && !hasData && !isHttpUrl(file.url!)) fail(`${at}.url`, FIELD_MESSAGES.wrongFormat);
    if (hasData && !hasUrl) {
      bytes = decodeBase64(file.data!) ?? undefined;
      if (!bytes) fail(`${at}.data`, FIELD_MESSAGES.wrongFormat);
      else if (bytes.length > maxBytes) fail(`${at}.data`, `File must be at most ${maxBytes} bytes`);
    }
    if (contentType && extension) {
      prepared.push({
        name: file.name.trim(),
        type: fileTypeOf(file.type),
        contentType,
        extension,
        url: hasUrl ? (file.url ?? undefined) : undefined,
        bytes,
      });
    }
  });
  return { details, prepared };
}

/** Writes the bytes under a fresh name in the case's folder; answers the key to find them by. */
export async function storeFile(filesDir: string, guid: string, file: PreparedFile): Promise<string> {
  const key = `${guid}/${randomUUID()}.${file.extension}`;
  await fs.mkdir(path.join(filesDir, guid), { recursive: true });
  await fs.writeFile(path.join(filesDir, key), file.bytes!, { flag: 'wx' });
  return key;
}

export async function removeStoredFiles(filesDir: string, keys: string[]): Promise<void> {
  await Promise.all(keys.map((key) => fs.rm(path.join(filesDir, key), { force: true })));
}

export function readStoredFile(filesDir: string, key: string): Promise<Buffer> {
  return fs.readFile(path.join(filesDir, key));
}

/** Where a stored file is served: the gateway route that checks the caller may see the case. */
export function fileUrlOf(guid: string, id: number): string {
  return `/api/v3/case/file?guid=${guid}&id=${id}`;
}
