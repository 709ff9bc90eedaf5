import type { Knex } from 'knex';

/**
 * The history of the cases booked before it was recorded, from what the hub kept of them: the
 * booking, each status, each upload of files, the provider's acceptance and the partner's
 * finish. Who acted is known only as the party (the account was not kept), and what the
 * updates changed was not kept at all.
 */
const BATCH = 200;

interface CaseRow {
  id: number;
  partner_id: number;
  service_provider_id: number | null;
  created_at: Date;
  accepted_at: Date | null;
  finished_at: Date | null;
  order_data: { files?: unknown[] };
}
interface StatusRow {
  case_id: number;
  key: string;
  created_at: Date;
}
interface FileRow {
  case_id: number;
  uploaded_by: string;
  created_at: Date;
}
interface Entry {
  case_id: number;
  at: Date;
  action: string;
  party_type: string;
  party_id: number | null;
  changes: string;
}

const change = (field: string, before: unknown, after: unknown) => JSON.stringify([{ field, before, after }]);

function entriesOf(row: CaseRow, statuses: StatusRow[], files: FileRow[]): Entry[] {
  const partner = { party_type: 'partner', party_id: row.partner_id };
  const provider = { party_type: 'provider', party_id: row.service_provider_id };
  const [first, ...later] = statuses;
  const entries: Entry[] = [
    {
      case_id: row.id,
      at: row.created_at,
      action: 'created',
      ...partner,
      changes: change('currentStatus', null, first?.key ?? null),
    },
  ];
  let previous = first?.key ?? null;
  for (const status of later) {
    entries.push({
      case_id: row.id,
      at: status.created_at,
      action: 'statusAdded',
      ...provider,
      changes: change('currentStatus', previous, status.key),
    });
    previous = status.key;
  }
  // One upload is the files of one transaction; they were listed in orderData.files in order.
  const listed = Array.isArray(row.order_data.files) ? row.order_data.files : [];
  let count = 0;
  for (let index = 0; index < files.length;) {
    const upload = files.filter((file) => file.created_at.getTime() === files[index].created_at.getTime());
    index += upload.length;
    entries.push({
      case_id: row.id,
      at: upload[0].created_at,
      action: 'filesUploaded',
      ...(upload[0].uploaded_by === 'provider' ? provider : partner),
      changes: change('orderData.files', count ? listed.slice(0, count) : null, listed.slice(0, count + upload.length)),
    });
    count += upload.length;
  }
  if (row.accepted_at)
    entries.push({
      case_id: row.id,
      at: row.accepted_at,
      action: 'accepted',
      ...provider,
      changes: change('orderData.serviceProviderExportStatus', false, true),
    });
  if (row.finished_at)
    entries.push({
      case_id: row.id,
      at: row.finished_at,
      action: 'finished',
      ...partner,
      changes: change('orderData.integrationsFinished', false, true),
    });
  return entries.sort((a, b) => a.at.getTime() - b.at.getTime());
}

export async function up(knex: Knex): Promise<void> {
  let after = 0;
  for (;;) {
    const cases = (await knex('booking.cases as c')
      .where('c.id', '>', after)
      .whereNotExists(knex('booking.case_history as h').whereRaw('h.case_id = c.id'))
      .orderBy('c.id')
      .limit(BATCH)
      .select(
        'c.id',
        'c.partner_id',
        'c.service_provider_id',
        'c.created_at',
        'c.accepted_at',
        'c.finished_at',
        'c.order_data',
      )) as CaseRow[];
    if (cases.length === 0) return;
    const ids = cases.map((row) => row.id);
    const statuses = (await knex('booking.case_statuses')
      .whereIn('case_id', ids)
      .orderBy('id')
      .select('case_id', 'key', 'created_at')) as StatusRow[];
    const files = (await knex('booking.case_files')
      .whereIn('case_id', ids)
      .orderBy('id')
      .select('case_id', 'uploaded_by', 'created_at')) as FileRow[];
    const entries = cases.flatMap((row) =>
      entriesOf(
        row,
        statuses.filter((status) => status.case_id === row.id),
        files.filter((file) => file.case_id === row.id),
      ),
    );
    await knex('booking.case_history').insert(entries);
    after = ids[ids.length - 1];
  }
}

export async function down(): Promise<void> {
  // The entries made from the kept records cannot be told from those recorded since; they stay.
}
