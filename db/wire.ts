// PGlite over the Postgres wire protocol, on the loopback, for the embedded start's worker process
// (docs/adr/0053-embedded-worker-process.md). PGlite is one session: every client shares it. So a
// client holds the whole database from its first message until PGlite is idle again after a Sync or
// a simple query (ReadyForQuery 'I'): an extended-protocol exchange (Parse, Bind, Execute, Sync) or a
// transaction is never interleaved with another client's, nor with the in-process queries (the same
// two PGlite locks are taken). @electric-sql/pglite-socket's multiplexer takes the lock per message,
// which lets two clients' unnamed portals and transactions interleave; this is why it is not used.
import { createServer, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

/** A client holding the database inside a transaction with nothing to send for this long is cut off (its transaction rolled back). */
export const IDLE_IN_TRANSACTION_MS = 10_000;
/** Messages a client may send ahead of the answers (postgres.js pipelines a few). */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
/** Notifications queued for a listening client that does not read them: past this it is cut off (and, as postgres.js does, listens again). */
const MAX_UNREAD_NOTIFY_BYTES = 16 * 1024 * 1024;
/** A client's UNLISTEN is run as this: the session is shared, and another client (or this process) may still listen. */
const UNLISTEN_NOTHING = 'unlisten dc_wire_listens_on';
/** The messages after which a client waits for the answers so far: Sync, Flush, Query, CopyDone, CopyFail, FunctionCall. */
const ANSWERED_AT = new Set(['S', 'H', 'Q', 'c', 'f', 'F']);

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

export interface WireServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  close(): Promise<void>;
}

export async function serveOverWire(pg: PGlite, host = '127.0.0.1'): Promise<WireServer> {
  const sessions = new Set<WireSession>();
  const listening = new Listening();
  // PGlite is one session: it hears every channel any client listens on, and tells this process.
  const stopHearing = pg.onNotification((channel, payload) => listening.notify(channel, payload));
  const server = createServer((socket) => {
    const session = new WireSession(pg, socket, listening);
    sessions.add(session);
    socket.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as { port: number };
  return {
    url: `postgres://postgres@${host}:${port}/postgres`,
    close: async () => {
      stopHearing();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sessions) s.end();
      });
      await Promise.all([...sessions].map((s) => s.ended));
    },
  };
}

/** Both PGlite locks, held until release() is called: nothing else runs on the instance meanwhile. */
function holdDatabase(pg: PGlite): Promise<() => void> {
  return new Promise((held) => {
    void pg._runExclusiveTransaction(() => pg._runExclusiveQuery(() => new Promise<void>((release) => held(release))));
  });
}

/** The status byte of the last ReadyForQuery in an answer ('I' idle, 'T' in a transaction, 'E' failed one), if any. */
export function readyStatus(data: Uint8Array): string | undefined {
  let status: string | undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let at = 0; at + 5 <= data.length; at += 1 + view.getInt32(at + 1)) {
    if (data[at] === 0x5a && at + 5 < data.length) status = String.fromCharCode(data[at + 5]!);
  }
  return status;
}

/**
 * Which clients listen on which channel. A client's LISTEN runs on PGlite as it is (the shared
 * session then hears the channel); its UNLISTEN only takes it off here, since others may still listen.
 */
class Listening {
  private readonly byChannel = new Map<string, Set<WireSession>>();

  add(channel: string, session: WireSession): void {
    const set = this.byChannel.get(channel) ?? new Set();
    set.add(session);
    this.byChannel.set(channel, set);
  }

  remove(channel: string | '*', session: WireSession): void {
    for (const [name, set] of this.byChannel) {
      if (channel !== '*' && name !== channel) continue;
      set.delete(session);
      if (set.size === 0) this.byChannel.delete(name);
    }
  }

  notify(channel: string, payload: string): void {
    const set = this.byChannel.get(channel);
    if (!set) return;
    const message = notificationResponse(channel, payload);
    for (const session of set) session.send(message);
  }
}

/** LISTEN / UNLISTEN in a statement's text: the channel as the server names it, or '*' (UNLISTEN *). */
export function listenStatement(text: string): { listen: boolean; channel: string } | undefined {
  const m = /^\s*(un)?listen\s+("(?:[^"]|"")+"|\*|[a-z_][a-z0-9_$]*)\s*;?\s*$/i.exec(text);
  if (!m) return undefined;
  const name = m[2]!;
  const channel = name.startsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name.toLowerCase();
  return { listen: !m[1], channel };
}

function notificationResponse(channel: string, payload: string): Buffer {
  const body = Buffer.concat([Buffer.alloc(4), Buffer.from(`${channel}\0${payload}\0`)]);
  const message = Buffer.alloc(5);
  message.write('A', 0);
  message.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([message, body]);
}

/** A Parse message with its statement text replaced (the name, parameter types kept). */
function reparse(message: Buffer, text: string): Buffer {
  const nameEnd = message.indexOf(0, 5);
  const textEnd = message.indexOf(0, nameEnd + 1);
  const out = Buffer.concat([message.subarray(0, nameEnd + 1), Buffer.from(`${text}\0`), message.subarray(textEnd + 1)]);
  out.writeInt32BE(out.length - 1, 1);
  return out;
}

class WireSession {
  private buffered: Buffer = Buffer.alloc(0);
  /** Answers held until the client's Sync, Flush or simple query (answer()). */
  private unsent: Uint8Array[] = [];
  /** Bytes of whole messages received and not yet handled. */
  private pending = 0;
  private started = false;
  private release: (() => void) | undefined;
  private working: Promise<void> = Promise.resolve();
  /** Named prepared statements this client made: deallocated when it goes, the session being shared. */
  private readonly statements = new Set<string>();
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  readonly ended: Promise<void>;

  constructor(
    private readonly pg: PGlite,
    private readonly socket: Socket,
    private readonly listening: Listening,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => socket.destroy());
    this.ended = new Promise((resolve) => socket.once('close', () => resolve(this.finish())));
  }

  end(): void {
    this.socket.destroy();
  }

  /** An asynchronous message (a notification); a client that lets them pile up unread is cut off. */
  send(message: Buffer): void {
    if (this.closed) return;
    if (this.socket.writableLength > MAX_UNREAD_NOTIFY_BYTES) return this.end();
    this.socket.write(message);
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    // What waits here, whole messages queued behind the lock and the one still arriving, is bounded.
    if (this.buffered.length + this.pending > MAX_BUFFERED_BYTES) return this.end();
    for (let message = this.next(); message; message = this.next()) {
      const m = message;
      this.pending += m.length;
      this.working = this.working
        .then(() => this.handle(m))
        .catch(() => this.end())
        .finally(() => (this.pending -= m.length));
    }
  }

  /** The next whole message, or undefined while it is still arriving. */
  private next(): Buffer | undefined {
    const b = this.buffered;
    const headed = this.started ? 5 : 4;
    if (b.length < headed) return undefined;
    const length = this.started ? 1 + b.readInt32BE(1) : b.readInt32BE(0);
    if (b.length < length) return undefined;
    const message = b.subarray(0, length);
    this.buffered = b.subarray(length);
    return message;
  }

  private async handle(message: Buffer): Promise<void> {
    if (this.closed) return;
    if (!this.started) return this.startup(message);
    const type = String.fromCharCode(message[0]!);
    if (type === 'X') return this.end();
    const sent = this.remember(type, message);
    await this.hold();
    const { data } = await this.pg.execProtocol(sent, { throwOnError: false, syncToFs: type === 'S' || type === 'Q' });
    this.answer(data, type);
    if ((type === 'S' || type === 'Q') && readyStatus(data) === 'I') this.letGo();
    else this.watchIdle();
  }

  private async startup(message: Buffer): Promise<void> {
    const code = message.length >= 8 ? message.readInt32BE(4) : 0;
    // No TLS on the loopback: 'N', and the client goes on in plain text with its startup message.
    if (code === SSL_REQUEST) return void this.socket.write('N');
    // PGlite has no other backend to cancel.
    if (code === CANCEL_REQUEST || code !== PROTOCOL_3) return this.end();
    this.started = true;
    await this.hold();
    const { data } = await this.pg.execProtocol(message, { throwOnError: false });
    this.socket.write(data);
    this.letGo();
  }

  /**
   * Answers leave in one write per exchange: a client waits for nothing before its Sync, Flush,
   * simple query, end of COPY data or function call (ANSWERED_AT; the protocol lets a server hold the
   * rest until then; the service sends no COPY nor function call, they are listed for completeness),
   * and a query's Bind, Execute and Sync were three writes, each a system call on both sides of the loopback.
   */
  private answer(data: Uint8Array, type: string): void {
    if (data.length) this.unsent.push(data);
    if (!ANSWERED_AT.has(type) || this.unsent.length === 0) return;
    const out = this.unsent.length === 1 ? this.unsent[0]! : Buffer.concat(this.unsent);
    this.unsent = [];
    this.socket.write(out);
  }

  /** What the session must know of a message before it runs; returns the message to run. */
  private remember(type: string, message: Buffer): Uint8Array {
    if (type !== 'P' && type !== 'Q') return message;
    // Parse: 'P', length, the statement's name (empty: the unnamed one), its text, ...; Query: 'Q', length, its text.
    const nameEnd = type === 'P' ? message.indexOf(0, 5) : 4;
    if (type === 'P' && nameEnd > 5) this.statements.add(message.toString('utf8', 5, nameEnd));
    const text = message.toString('utf8', nameEnd + 1, message.indexOf(0, nameEnd + 1));
    const listen = text.length < 200 ? listenStatement(text) : undefined;
    if (!listen) return message;
    if (listen.listen) {
      if (listen.channel !== '*') this.listening.add(listen.channel, this);
      return message;
    }
    this.listening.remove(listen.channel, this);
    return type === 'P' ? reparse(message, UNLISTEN_NOTHING) : simpleQuery(UNLISTEN_NOTHING);
  }

  private async hold(): Promise<void> {
    if (!this.release) this.release = await holdDatabase(this.pg);
  }

  private letGo(): void {
    clearTimeout(this.idleTimer);
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  /** Holding the database between messages: bounded, so a stuck client cannot stop the service. */
  private watchIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.end(), IDLE_IN_TRANSACTION_MS);
  }

  /** After the client went: what it left open in the shared session is closed, then the database let go. */
  private async finish(): Promise<void> {
    this.closed = true;
    this.listening.remove('*', this);
    clearTimeout(this.idleTimer);
    await this.working;
    if (!this.started) return;
    await this.hold();
    try {
      // An extended exchange cut before its Sync leaves the session skipping messages until one.
      await this.pg.execProtocol(Buffer.from([0x53, 0, 0, 0, 4]), { throwOnError: false });
      if (this.pg.isInTransaction()) await this.pg.execProtocol(simpleQuery('ROLLBACK'), { throwOnError: false });
      for (const name of this.statements) await this.pg.execProtocol(simpleQuery(`DEALLOCATE "${name.replaceAll('"', '""')}"`), { throwOnError: false });
    } finally {
      this.letGo();
    }
  }
}

function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`);
  const message = Buffer.alloc(5 + text.length);
  message.write('Q', 0);
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}
