/**
 * Gives a service `this.db` (the process's database) and brings its own schema up to date
 * when it starts.
 */
import type { ServiceSchema, Service, ServiceSettingSchema } from 'moleculer';
import { databaseOf } from './context';
import { Database, migrateSchema } from './db';

export interface DbService {
  db: Database;
}

export function DbMixin(schema: string, migrationsFolder: string): Partial<ServiceSchema> {
  const mixin: Partial<ServiceSchema<ServiceSettingSchema, Service & DbService>> = {
    async started(this: Service & DbService) {
      const db = await databaseOf(this.broker);
      await migrateSchema(db, schema, migrationsFolder);
      // Set only once the schema is current: pollers look for it to know the service is ready.
      this.db = db;
    },
  };
  return mixin as Partial<ServiceSchema>;
}
