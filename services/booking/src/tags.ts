/** Case tags: named in the world file (`tags`), set on a case by id, searched by name. */
import type { Knex } from 'knex';
import type { FieldDetails, World } from '@hub/shared';

/** Upserts the world's tags by id; tags a later world leaves out are kept (cases may carry them). */
export async function applyTags(trx: Knex.Transaction, world: World): Promise<void> {
  const tags = world.tags ?? [];
  if (tags.length === 0) return;
  await trx('booking.tags')
    .insert(tags.map(({ id, name }) => ({ id, name })))
    .onConflict('id')
    .merge(['name']);
  // Ids come from the world, so the serial must not hand one of them out later.
  await trx.raw(
    "select setval(pg_get_serial_sequence('booking.tags', 'id'), greatest((select max(id) from booking.tags), 1))",
  );
}

/**
 * The world's tags whose name a stored tag of another id keeps (names are unique), each as a
 * field error; a stored tag the file renames gives its name up.
 */
export async function tagNameClashes(knex: Knex, world: World): Promise<FieldDetails> {
  const tags = world.tags ?? [];
  if (tags.length === 0) return {};
  const stored = (await knex('booking.tags')
    .whereRaw('lower(name) = any(?)', [tags.map((tag) => tag.name.toLowerCase())])
    .select('id', 'name')) as Array<{ id: number; name: string }>;
  const inFile = new Set(tags.map((tag) => tag.id));
  const details: FieldDetails = {};
  tags.forEach((tag, index) => {
    const kept = stored.find(
      (row) => row.id !== tag.id && !inFile.has(row.id) && row.name.toLowerCase() === tag.name.toLowerCase(),
    );
    if (kept) details[`tags[${index}].name`] = [`tag ${kept.id} has this name`];
  });
  return details;
}

/** The ids among `ids` that name no tag. */
export async function unknownTagIds(knex: Knex, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = new Set(
    ((await knex('booking.tags').whereIn('id', ids).select('id')) as Array<{ id: number }>).map((row) => row.id),
  );
  return ids.filter((id) => !found.has(id));
}
