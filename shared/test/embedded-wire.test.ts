/**
 * The stream pg's client takes for its socket on the embedded database: PGlite answers whole
 * messages in the order they were written, a session's end leaves it clean for the next one, and
 * a client's Terminate never reaches PGlite.
 */
import { once } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { EmbeddedWire } from '../src/embedded-wire';

const PROTOCOL_3 = 196608;

const startupMessage = (): Buffer => {
  const parameters = Buffer.from('user\0postgres\0database\0postgres\0\0');
  const message = Buffer.alloc(8 + parameters.length);
  message.writeInt32BE(message.length, 0);
  message.writeInt32BE(PROTOCOL_3, 4);
  parameters.copy(message, 8);
  return message;
};

const frame = (type: string, body: Buffer): Buffer => {
  const message = Buffer.alloc(5 + body.length);
  message.write(type, 0);
  message.writeInt32BE(4 + body.length, 1);
  body.copy(message, 5);
  return message;
};
const simpleQuery = (sql: string) => frame('Q', Buffer.from(`${sql}\0`));
const terminate = () => frame('X', Buffer.alloc(0));

interface Answer {
  type: string;
  body: Buffer;
}

/** Reads what the wire answers, message by message. */
class AnswerReader {
  private received = Buffer.alloc(0);
  constructor(private readonly wire: EmbeddedWire) {
    wire.on('data', (data: Buffer) => {
      this.received = Buffer.concat([this.received, data]);
    });
  }

  /** The messages up to and with the next ReadyForQuery. */
  async untilReady(): Promise<Answer[]> {
    const answers: Answer[] = [];
    for (;;) {
      while (this.received.length >= 5 && this.received.length >= 1 + this.received.readInt32BE(1)) {
        const end = 1 + this.received.readInt32BE(1);
        const answer = { type: String.fromCharCode(this.received[0]), body: this.received.subarray(5, end) };
        this.received = this.received.subarray(end);
        answers.push(answer);
        if (answer.type === 'Z') return answers;
      }
      await once(this.wire, 'data');
    }
  }
}

/** The text of each column of each DataRow among `answers`. */
const rowsOf = (answers: Answer[]): string[][] =>
  answers
    .filter((answer) => answer.type === 'D')
    .map(({ body }) => {
      const columns: string[] = [];
      let offset = 2;
      for (let column = 0; column < body.readInt16BE(0); column++) {
        const length = body.readInt32BE(offset);
        columns.push(body.subarray(offset + 4, offset + 4 + length).toString());
        offset += 4 + length;
      }
      return columns;
    });

const clientOn = (database: PGlite) =>
  new pg.Client({ user: 'postgres', database: 'postgres', stream: () => new EmbeddedWire(database) });

describe('the embedded wire', () => {
  let database: PGlite;

  beforeAll(async () => {
    database = await PGlite.create();
  });
  afterAll(() => database.close());

  it('hands PGlite a message only once it is whole', async () => {
    const wire = new EmbeddedWire(database);
    const reader = new AnswerReader(wire);
    const startup = startupMessage();
    wire.write(startup.subarray(0, 5));
    await nextTurn();
    await nextTurn();
    wire.write(startup.subarray(5));
    const greeting = await reader.untilReady();
    expect(greeting[0].type).toBe('R');

    const query = simpleQuery('select 41 + 1');
    wire.write(query.subarray(0, 3));
    await nextTurn();
    await nextTurn();
    wire.write(query.subarray(3));
    expect(rowsOf(await reader.untilReady())).toEqual([['42']]);
    wire.destroy();
  });

  it('answers the messages of one turn in the order they were written', async () => {
    const wire = new EmbeddedWire(database);
    const reader = new AnswerReader(wire);
    wire.write(startupMessage());
    await reader.untilReady();
    for (let n = 1; n <= 3; n++) wire.write(simpleQuery(`select ${n}`));
    const answers = [await reader.untilReady(), await reader.untilReady(), await reader.untilReady()];
    expect(answers.map(rowsOf)).toEqual([[['1']], [['2']], [['3']]]);
    wire.destroy();
  });

  it("keeps a client's Terminate from PGlite, which goes on serving the next session", async () => {
    const wire = new EmbeddedWire(database);
    const reader = new AnswerReader(wire);
    wire.write(startupMessage());
    await reader.untilReady();
    wire.write(Buffer.concat([simpleQuery('select 7'), terminate()]));
    expect(rowsOf(await reader.untilReady())).toEqual([['7']]);
    wire.end();
    await once(wire, 'close');

    const next = clientOn(database);
    await next.connect();
    expect((await next.query('select 9 as nine')).rows).toEqual([{ nine: 9 }]);
    await next.end();
  });

  it('rolls back the open transaction of a session that ends and forgets its prepared statements', async () => {
    await database.exec('create table if not exists kept (note text)');
    const first = clientOn(database);
    await first.connect();
    await first.query({ name: 'notes', text: 'select count(*)::int as count from kept' });
    await first.query('begin');
    await first.query("insert into kept values ('never committed')");
    await first.end();

    const second = clientOn(database);
    await second.connect();
    expect((await second.query({ name: 'notes', text: 'select count(*)::int as count from kept' })).rows).toEqual([
      { count: 0 },
    ]);
    expect(database.isInTransaction()).toBe(false);
    await second.end();
  });

  it('carries statements and answers larger than a socket buffer both ways', async () => {
    const client = clientOn(database);
    await client.connect();
    const text = 'x'.repeat(3_000_000);
    expect((await client.query('select length($1::text) as length, $1::text as echoed', [text])).rows).toEqual([
      { length: text.length, echoed: text },
    ]);
    await client.end();
  });
});
