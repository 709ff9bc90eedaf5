/**
 * Counts kept by statement triggers in the transaction of every write to a table, so a search
 * answers an exact count by summing a few rows instead of reading an index entry per match (issue
 * 17; the spec's counts are exact, and these are: a statement sees the counts of exactly the
 * writes its snapshot sees).
 *
 * A write never waits for another's: each trigger event's rows change their values' counts (+1
 * added, -1 removed), and each change goes to a row of those values that no other transaction
 * holds (`skip locked`), or to a new row when every one is held. Values therefore have as many
 * rows as their writes ever overlapped, and a reader sums them.
 */
import type { Knex } from 'knex';

/** A value the counts are kept by; a nullable one is matched with `is not distinct from`. */
export interface CountedColumn {
  name: string;
  nullable: boolean;
  /** SQL computing it from a written row's columns; the column of the same name when absent. */
  of?: string;
}

export interface KeptCounts {
  /** The table of counts: one column per counted value, and `count`. */
  table: string;
  count: string;
  /** The trigger functions are `${functions}_on_insert`, `_on_update` and `_on_delete`. */
  functions: string;
  columns: CountedColumn[];
}

/** Creates, or replaces, the trigger functions that keep `kept`'s counts. */
export async function createSkipLockedCountFunctions(knex: Knex, kept: KeptCounts): Promise<void> {
  const { table, count, functions, columns } = kept;
  const list = columns.map(({ name }) => name).join(', ');
  const values = columns.map(({ name, of }) => (of ? `${of} as ${name}` : name)).join(', ');
  const changesOn = {
    insert: `select ${values}, 1 as change from added`,
    delete: `select ${values}, -1 as change from removed`,
    update: `select ${values}, -1 as change from removed union all select ${values}, 1 from added`,
  };
  const matching = (nullSafe: boolean) =>
    columns
      .map(({ name, nullable }) => `${name} ${nullable && nullSafe ? 'is not distinct from' : '='} changed.${name}`)
      .join(' and ');
  const present = columns
    .filter(({ nullable }) => nullable)
    .map(({ name }) => `changed.${name} is not null`)
    .join(' and ');
  // Equality where every value is there (nearly always), so an index on the columns finds the row.
  const freeRow = (nullSafe: boolean) =>
    `select ctid into free from ${table} where ${matching(nullSafe)} limit 1 for update skip locked;`;
  for (const [event, changes] of Object.entries(changesOn)) {
    await knex.raw(`
      create or replace function ${functions}_on_${event}() returns trigger language plpgsql as $$
      declare
        changed record;
        free tid;
      begin
        for changed in
          select ${list}, sum(change) as change from (${changes}) as written
           group by ${list} having sum(change) <> 0
        loop
          if ${present || 'true'} then
            ${freeRow(false)}
          else
            ${freeRow(true)}
          end if;
          if found then
            update ${table} set ${count} = ${count} + changed.change where ctid = free;
          else
            insert into ${table} (${list}, ${count})
            values (${columns.map(({ name }) => `changed.${name}`).join(', ')}, changed.change);
          end if;
        end loop;
        return null;
      end $$`);
  }
}

/** The transition tables each trigger event of the count functions reads. */
const REFERENCING = {
  insert: 'new table as added',
  update: 'old table as removed new table as added',
  delete: 'old table as removed',
};

/**
 * Keeps `kept`'s counts of the rows of `source` from now on, by statement triggers named
 * `${triggers}_on_<event>` (a truncate empties the counts), and counts the rows already there.
 * The caller holds writes to `source` until it commits, so the count cannot miss or double one.
 */
export async function keepCounts(knex: Knex, source: string, triggers: string, kept: KeptCounts): Promise<void> {
  const { table, count, functions, columns } = kept;
  await createSkipLockedCountFunctions(knex, kept);
  for (const [event, referencing] of Object.entries(REFERENCING)) {
    await knex.raw(
      `create trigger ${triggers}_on_${event} after ${event} on ${source} referencing ${referencing}
         for each statement execute function ${functions}_on_${event}()`,
    );
  }
  await knex.raw(`
    create function ${functions}_on_truncate() returns trigger language plpgsql as $$
    begin
      truncate ${table};
      return null;
    end $$`);
  await knex.raw(
    `create trigger ${triggers}_on_truncate after truncate on ${source}
       for each statement execute function ${functions}_on_truncate()`,
  );
  const list = columns.map(({ name }) => name).join(', ');
  const values = columns.map(({ name, of }) => of ?? name).join(', ');
  await knex.raw(
    `insert into ${table} (${list}, ${count}) select ${values}, count(*) from ${source} group by ${columns.map((_, index) => index + 1).join(', ')}`,
  );
}

/** Drops what `keepCounts` made, but the counts' table. */
export async function stopKeepingCounts(knex: Knex, source: string, triggers: string, kept: KeptCounts): Promise<void> {
  for (const event of [...Object.keys(REFERENCING), 'truncate']) {
    await knex.raw(`drop trigger ${triggers}_on_${event} on ${source}`);
    await knex.raw(`drop function ${kept.functions}_on_${event}()`);
  }
}
