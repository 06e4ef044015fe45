// A real SMTP server for the e-mail tests (smtp-server), keeping what it receives parsed by
// mailparser. `down()` stops listening (a client's connection is refused, as with a dead server);
// `up()` listens again on the same port; `dropNext(n)` closes the next n connections before the
// greeting, as a server restarting does. (test/support/smtp-script.ts hangs up at any other step.)
import type { AddressInfo, Socket } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Received {
  envelopeTo: string[];
  raw: Buffer;
  parsed: ParsedMail;
}

export interface SmtpSink {
  url: string;
  received: Received[];
  /** Waits until `n` mails (in all) have arrived; returns them. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  down(): Promise<void>;
  up(): Promise<void>;
  /** Closes the next `n` connections at once, before any greeting. */
  dropNext(n: number): void;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const received: Received[] = [];
  let server: SMTPServer | undefined;
  let port = 0;
  let dropping = 0;
  // smtp-server greets each connection its net.Server accepts: the gate runs first.
  const gate = (s: SMTPServer) => {
    const [greet] = s.server.listeners('connection') as ((socket: Socket) => void)[];
    s.server.removeAllListeners('connection');
    s.server.on('connection', (socket: Socket) => {
      if (dropping <= 0) return greet!.call(s.server, socket);
      dropping--;
      socket.destroy();
    });
  };
  const listen = async () => {
    const s = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      closeTimeout: 500,
      onData(stream, session, done) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          void simpleParser(raw).then((parsed) => {
            received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), raw, parsed });
            done();
          }, done);
        });
      },
    });
    gate(s);
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    s.on('error', () => undefined);
    port = (s.server.address() as AddressInfo).port;
    server = s;
  };
  const down = async () => {
    const s = server;
    server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async waitFor(n, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`${received.length} of ${n} mails after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return received.slice(0, n);
    },
    down,
    up: listen,
    dropNext: (n) => {
      dropping = n;
    },
    close: down,
  };
}
