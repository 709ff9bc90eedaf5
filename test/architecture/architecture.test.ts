/**
 * ARCHITECTURE.md stays true: every `service.name` it quotes (in code spans, its diagrams and
 * its table of services) is an action of that service or a table of its schema in the running
 * hub, and every event it names is one the broker knows or one the services write to their
 * outbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ALL_SERVICES, databaseOf, DOMAIN_EVENTS } from '../../shared/src';
import { startTestHub, type TestHub } from '../support/hub';

const ARCHITECTURE = fs.readFileSync(path.resolve(__dirname, '../../ARCHITECTURE.md'), 'utf8');

/** What the running hub has, by service: actions, tables; and the events it knows. */
interface Known {
  actions: Set<string>;
  tables: Set<string>;
  events: Set<string>;
}

/** The code the page quotes: its inline spans and its fenced blocks. */
function quotedCode(markdown: string): string[] {
  const fenced = [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((match) => match[1]);
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  return [...fenced, ...[...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1])];
}

/** The names the page quotes that the hub does not have, each as `name: why`. */
function staleNames(markdown: string, known: Known): string[] {
  const services = new Set<string>(ALL_SERVICES);
  const eventPrefixes = new Set([...known.events].map((event) => event.split('.')[0]));
  const stale = new Set<string>();
  for (const code of quotedCode(markdown)) {
    for (const [name, prefix] of code.matchAll(/(?<![\w./-])([a-z][\w-]*)\.[a-zA-Z_]\w*(?![\w./(-])/g)) {
      if (services.has(prefix)) {
        if (!known.actions.has(name) && !known.tables.has(name)) stale.add(`${name}: no such action or table`);
      } else if (eventPrefixes.has(prefix) && !known.events.has(name)) stale.add(`${name}: no such event`);
    }
  }
  // The table of services: what each owns, the actions others call, the events it writes.
  for (const row of markdown.matchAll(/^\| `([a-z-]+)` \|(.*)\|\s*$/gm)) {
    const [service, cells] = [row[1], row[2].split(' | ')];
    if (!services.has(service)) {
      stale.add(`${service}: no such service`);
      continue;
    }
    const names = (cell: string | undefined) => [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    for (const table of names(cells[0]))
      if (!known.tables.has(`${service}.${table}`)) stale.add(`${service}.${table}: no such table`);
    for (const action of names(cells[2]))
      if (!known.actions.has(`${service}.${action}`)) stale.add(`${service}.${action}: no such action`);
    for (const event of names(cells[3])) if (!known.events.has(event)) stale.add(`${event}: no such event`);
  }
  return [...stale].sort();
}

let hub: TestHub;
let known: Known;

beforeAll(async () => {
  hub = await startTestHub({ services: [...ALL_SERVICES] });
  const { knex } = await databaseOf(hub.broker);
  const { rows } = (await knex.raw(
    `select n.nspname as schema, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'v') and not c.relispartition`,
  )) as { rows: Array<{ schema: string; name: string }> };
  const serviceOfSchema = new Map<string, string>(ALL_SERVICES.map((name) => [name.replace(/-/g, '_'), name]));
  const events = await hub.broker.call<Array<{ name: string }>, object>('$node.events', { skipInternal: true });
  known = {
    actions: new Set(hub.broker.registry.getActionList({ skipInternal: true }).map(({ name }) => name)),
    tables: new Set(
      rows
        .filter(({ schema }) => serviceOfSchema.has(schema))
        .map((row) => `${serviceOfSchema.get(row.schema)}.${row.name}`),
    ),
    events: new Set([...events.map(({ name }) => name), ...Object.values(DOMAIN_EVENTS)]),
  };
});
afterAll(() => hub?.stop());

it('names only actions, tables and events the running hub has', () => {
  expect(known.actions.has('catalog.checkBooking')).toBe(true);
  expect(known.tables.has('webhooks.deliveries')).toBe(true);
  expect(known.events.has('world.changed')).toBe(true);
  expect(staleNames(ARCHITECTURE, known)).toEqual([]);
});

it('finds a name the hub does not have, in a span, a diagram or the table of services', () => {
  const page = [
    'The gateway asks `catalog.resolveToken`, then `catalog.bookingRef`; catalog broadcasts `world.changd`.',
    '```',
    'client ─► gateway ─► booking.create',
    '                        ├─► routing.route2   choose the provider',
    '```',
    '| service | owns | parts | actions other services call | writes events |',
    '|---|---|---|---|---|',
    '| `routing` | `competences`, `rules` | `competences` | `decide`, `choose` | — |',
    '| `booking` | `cases` | — | `caseCores` | `case.created`, `case.closed` |',
    '| `billing` | — | — | — | — |',
  ].join('\n');
  expect(staleNames(page, known)).toEqual([
    'billing: no such service',
    'case.closed: no such event',
    'catalog.bookingRef: no such action or table',
    'routing.choose: no such action',
    'routing.route2: no such action or table',
    'routing.rules: no such table',
    'world.changd: no such event',
  ]);
});
