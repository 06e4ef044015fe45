// A real SMTP server for the e-mail tests (smtp-server), keeping what it receives parsed by
// mailparser. `down()` stops listening (a client's connection is refused, as with a dead server);
// `up()` listens again on the same port.
import type { AddressInfo } from 'node:net';
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
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const received: Received[] = [];
  let server: SMTPServer | undefined;
  let port = 0;
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
    close: down,
  };
}
