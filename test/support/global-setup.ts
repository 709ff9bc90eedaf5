/**
 * Migrates every service's schema once into an in-memory PGlite and dumps it, so each suite
 * starts from a fresh copy of a migrated database in about a second instead of a full initdb.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dumpEmbedded, loadConfig, migrateSchema, openDatabase } from '../../shared/src';

export const TEMPLATE_ENV = 'HUB_TEST_DB_TEMPLATE';

export default async function globalSetup(): Promise<void> {
  const servicesDir = path.resolve(__dirname, '../../services');
  const database = await openDatabase(loadConfig({}), {});
  try {
    for (const service of fs.readdirSync(servicesDir).sort()) {
      const migrations = path.join(servicesDir, service, 'src', 'migrations');
      if (fs.existsSync(migrations)) await migrateSchema(database, service.replace(/-/g, '_'), migrations);
    }
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hub-test-')), 'template.tar');
    fs.writeFileSync(file, Buffer.from(await (await dumpEmbedded(database)).arrayBuffer()));
    process.env[TEMPLATE_ENV] = file;
  } finally {
    await database.close();
  }
}
