/**
 * The embedded database's connection: a stream that pg's client takes for its socket, handing what
 * the client writes to PGlite's protocol handler in this process and giving back what it answers.
 *
 * PGlite's socket server did the same over a loopback TCP socket, and it ran every message of a
 * query (parse, bind, describe, execute, sync) through PGlite and out of the socket on its own: a
 * round trip cost the process's one thread several times PGlite's own work for a short
 * statement. Here the messages a turn writes reach
 * PGlite together and its answer comes back in one piece, without the kernel in between.
 *
 * Running them on the next turn rather than at once leaves the event loop its I/O between two
 * database calls, as a socket did.
 */
import { Duplex } from 'node:stream';

/** What the wire needs of a PGlite instance. */
export interface WireDatabase {
  runExclusive<T>(work: () => Promise<T>): Promise<T>;
  execProtocolRawStream(message: Uint8Array, options: { onRawData: (data: Uint8Array) => void }): Promise<void>;
  isInTransaction(): boolean;
  exec(sql: string): Promise<unknown>;
}

/** The frontend message that ends a session: PGlite is told nothing, the stream just ends. */
const TERMINATE = 'X'.charCodeAt(0);

export class EmbeddedWire extends Duplex {
  private written: Buffer[] = [];
  private flushScheduled = false;
  /** Until the startup message has gone, the first frame has no type byte. */
  private started = false;
  /** Each batch runs after the one before it has answered, in the order they were written. */
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly database: WireDatabase) {
    super();
  }

  // The parts of net.Socket that pg's connection calls.
  connect(): this {
    process.nextTick(() => this.emit('connect'));
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  override _read(): void {
    // Answers are pushed as PGlite produces them.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.written.push(chunk);
    this.scheduleFlush();
    done();
  }

  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void): void {
    for (const { chunk } of chunks) this.written.push(chunk);
    this.scheduleFlush();
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.running.then(() => {
      this.push(null);
      done();
    }, done);
  }

  /**
   * A session that ends leaves the one PGlite session as a server leaves a new one: no open
   * transaction, and none of its prepared statements, whose names the next client reuses.
   */
  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.running
      .then(async () => {
        if (this.database.isInTransaction()) await this.database.exec('ROLLBACK');
        await this.database.exec('DEALLOCATE ALL');
      })
      .then(
        () => done(error),
        (cleanupError: Error) => done(error ?? cleanupError),
      );
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const messages = this.takeWholeMessages();
      if (messages.length === 0) return;
      this.running = this.running
        .then(() =>
          this.database.runExclusive(() =>
            this.database.execProtocolRawStream(messages, { onRawData: (data) => this.push(Buffer.from(data)) }),
          ),
        )
        .catch((error: Error) => {
          this.destroy(error);
        });
    });
  }

  /**
   * The written messages that are whole, leaving a partial one for a later write. PGlite takes the
   * startup message only on its own, and a client sends nothing else before it is answered.
   */
  private takeWholeMessages(): Buffer {
    const pending = this.written.length === 1 ? this.written[0] : Buffer.concat(this.written);
    const whole: Buffer[] = [];
    let offset = 0;
    if (!this.started) {
      if (pending.length >= 4 && pending.length >= pending.readInt32BE(0)) {
        offset = pending.readInt32BE(0);
        whole.push(pending.subarray(0, offset));
        this.started = true;
      }
    } else {
      while (pending.length >= offset + 5) {
        const end = offset + 1 + pending.readInt32BE(offset + 1);
        if (pending.length < end) break;
        if (pending[offset] !== TERMINATE) whole.push(pending.subarray(offset, end));
        offset = end;
      }
    }
    this.written = offset < pending.length ? [pending.subarray(offset)] : [];
    return whole.length === 1 ? whole[0] : Buffer.concat(whole);
  }
}
