/**
 * Each service's baseline migration builds, on the Postgres server, the schema the migrations it
 * replaced built: `pg_dump --schema-only` of each schema says the same, statement by statement,
 * and the database holds the same extensions and rows (baseline-schema.ts says what is left out
 * and how the snapshot is made).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type Database, loadConfig, openDatabase } from '../../shared/src';
import { createServerDatabase } from '../support/hub';
import {
  catalogOf,
  dumpStatements,
  migrateToBaseline,
  SERVICES,
  sharedExtensions,
  snapshotText,
  SNAPSHOT_DIR,
  writingSnapshot,
} from './baseline-schema';

let server: { url: string; drop(): Promise<void> };
let database: Database;

beforeAll(async () => {
  server = await createServerDatabase();
  database = await openDatabase(loadConfig({ DATABASE_URL: server.url }));
  await migrateToBaseline(database);
});

afterAll(async () => {
  await database.close();
  await server.drop();
});

function schemaDump(schema: string): string {
  return execFileSync('pg_dump', ['--schema-only', '--no-owner', '--schema', schema, server.url], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

it.each(SERVICES.map(({ schema }) => schema))('dumps the %s schema as the replaced migrations did', (schema) => {
  const file = path.join(SNAPSHOT_DIR, `${schema}.sql`);
  const dump = schemaDump(schema);
  if (writingSnapshot) fs.writeFileSync(file, dump.replace(/^\\(un)?restrict .*\n/gm, ''));
  expect(dumpStatements(dump)).toEqual(dumpStatements(fs.readFileSync(file, 'utf8')));
});

it('holds the extensions and rows the replaced migrations left', async () => {
  const file = path.join(SNAPSHOT_DIR, 'server.json');
  const built: Record<string, unknown> = { extensions: await sharedExtensions(database.knex) };
  for (const { schema } of SERVICES) {
    const { extensions, data, sequences } = await catalogOf(database.knex, schema);
    built[schema] = { extensions, data, sequences };
  }
  if (writingSnapshot) fs.writeFileSync(file, `${snapshotText(built)}\n`);
  expect(built).toEqual(JSON.parse(fs.readFileSync(file, 'utf8')));
});
