/** Reading what a service wrote to its outbox since the last look, for tests that assert events. */
import type { Knex } from 'knex';

export interface OutboxEvent {
  id: number;
  type: string;
  case_guid: string | null;
  audience: Record<string, unknown>;
  payload: Record<string, any>;
}

export function outboxReader(
  knex: () => Knex,
  schema: string,
): { newEvents(): Promise<OutboxEvent[]>; skip(): Promise<void> } {
  let lastId = 0;
  const newEvents = async () => {
    const rows = (await knex()(`${schema}.outbox`).where('id', '>', lastId).orderBy('id')) as OutboxEvent[];
    if (rows.length) lastId = rows[rows.length - 1].id;
    return rows;
  };
  return {
    newEvents,
    skip: async () => {
      await newEvents();
    },
  };
}
