/**
 * Each service's baseline migration builds, on the embedded database, the schema the migrations
 * it replaced built: the same objects with the same definitions, as the catalog describes them,
 * and the same rows (baseline-schema.ts says what is left out and how the snapshot is made).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Database, loadConfig, openDatabase } from '../../shared/src';
import {
  BASELINE,
  catalogOf,
  migrateToBaseline,
  SERVICES,
  sharedExtensions,
  snapshotText,
  SNAPSHOT_DIR,
  writingSnapshot,
} from './baseline-schema';

const SNAPSHOT = path.join(SNAPSHOT_DIR, 'catalog.json');

let database: Database;
let snapshot: Record<string, unknown>;
const built: Record<string, unknown> = {};

beforeAll(async () => {
  database = await openDatabase(loadConfig({}), {});
  await migrateToBaseline(database);
  built.extensions = await sharedExtensions(database.knex);
  for (const { schema } of SERVICES) built[schema] = await catalogOf(database.knex, schema);
  if (writingSnapshot) fs.writeFileSync(SNAPSHOT, `${snapshotText(built)}\n`);
  snapshot = JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')) as Record<string, unknown>;
});

afterAll(() => database.close());

it('creates the extensions the replaced migrations created', () => {
  expect(built.extensions).toEqual(snapshot.extensions);
});

it.each(SERVICES.map(({ schema }) => schema))('builds the %s schema the replaced migrations built', (schema) => {
  expect(built[schema]).toEqual(snapshot[schema]);
});

it('names each migration by its time, not before the baseline nor after now, and what it changes', () => {
  const now = new Date().toISOString().replace(/\D/g, '').slice(0, BASELINE.length);
  for (const { dir } of SERVICES)
    for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.ts'))) {
      const [, time] = /^(\d{14})_[a-z]+(?:_[a-z0-9]+)+\.ts$/.exec(file) ?? [];
      expect({ file, named: time !== undefined, fromBaseline: time >= BASELINE, past: time <= now }).toEqual({
        file,
        named: true,
        fromBaseline: true,
        past: true,
      });
    }
});

it('covers every schema of the snapshot', () => {
  expect(Object.keys(built).sort()).toEqual(Object.keys(snapshot).sort());
});
