/**
 * Migrates every service's schema once into an in-memory PGlite and dumps it, so each suite
 * starts from a fresh copy of a migrated database in about a second instead of a full initdb.
 *
 * The dump is kept under node_modules/.cache, named by a hash of every migration file (SQL files
 * in a migration's folder included) and the PGlite version, so the next jest run (each package's
 * tests are one, see package-tests.js) reuses it until a migration changes.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dumpEmbedded, loadConfig, migrateSchema, openDatabase } from '../../shared/src';

export const TEMPLATE_ENV = 'HUB_TEST_DB_TEMPLATE';

const root = path.resolve(__dirname, '../..');
const servicesDir = path.join(root, 'services');

export default async function globalSetup(): Promise<void> {
  const migrations = fs
    .readdirSync(servicesDir)
    .sort()
    .map((service) => ({
      schema: service.replace(/-/g, '_'),
      dir: path.join(servicesDir, service, 'src', 'migrations'),
    }))
    .filter(({ dir }) => fs.existsSync(dir));
  const file = path.join(root, 'node_modules', '.cache', 'hub-test-db', `${templateKey(migrations)}.tar`);
  if (!fs.existsSync(file)) await writeTemplate(migrations, file);
  process.env[TEMPLATE_ENV] = file;
}

function templateKey(migrations: Array<{ schema: string; dir: string }>): string {
  const hash = crypto.createHash('sha256');
  hash.update(fs.readFileSync(path.join(root, 'node_modules', '@electric-sql', 'pglite', 'package.json')));
  for (const { schema, dir } of migrations) {
    // A migration's SQL files sit in a folder beside it.
    for (const name of (fs.readdirSync(dir, { recursive: true }) as string[]).sort()) {
      if (fs.statSync(path.join(dir, name)).isDirectory()) continue;
      hash.update(`${schema}/${name}\n`);
      hash.update(fs.readFileSync(path.join(dir, name)));
    }
  }
  return hash.digest('hex').slice(0, 16);
}

async function writeTemplate(migrations: Array<{ schema: string; dir: string }>, file: string): Promise<void> {
  const database = await openDatabase(loadConfig({}), {});
  try {
    for (const { schema, dir } of migrations) await migrateSchema(database, schema, dir);
    const dump = Buffer.from(await (await dumpEmbedded(database)).arrayBuffer());
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Written aside and renamed: two runs starting together never read half a file.
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, dump);
    fs.renameSync(partial, file);
  } finally {
    await database.close();
  }
}
