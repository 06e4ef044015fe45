// A raw SMTP server (node:net) that hangs up at a chosen step of the exchange, or answers the
// message's final dot with a chosen reply, so the tests can see how a mail is classified by what
// reached the server (docs/notifications.md#5-e-mail). It speaks just enough SMTP for nodemailer:
// EHLO (AUTH PLAIN, optionally PIPELINING and STARTTLS), HELO, AUTH, MAIL, RCPT, DATA, RSET, QUIT.
// Connections after the first `times` take the mail normally, as a server back from a restart;
// `greetAfter` holds the greeting back, as a slow server does.
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';

/** Where the server hangs up, in the order of an exchange. */
export type HangUp =
  | 'connect' // on accepting the connection, before its greeting
  | 'greeting' // right after its greeting
  | 'EHLO' // right after answering EHLO
  | 'HELO' // on HELO, after refusing EHLO, before answering
  | 'STARTTLS' // on STARTTLS (then advertised), before answering
  | 'AUTH' // on AUTH, before answering
  | 'MAIL' // right after answering MAIL FROM
  | 'RCPT' // right after answering RCPT TO
  | 'DATA' // right after its 354
  | 'message' // on the message's first bytes, before answering it
  | 'dot'; // on the message's final dot, before the final reply

export interface SmtpScript {
  hangUp?: HangUp;
  /** The reply to the message's final dot, instead of 250 (`451 …`, `554 …`). */
  finalReply?: string;
  /** A refusal instead of the go-ahead to a command (`AUTH: '535 …'`, `RCPT: '450 …'`). */
  refuse?: Partial<Record<'AUTH' | 'MAIL' | 'RCPT' | 'DATA', string>>;
  /** Advertise PIPELINING: nodemailer then sends MAIL, RCPT and DATA at once. */
  pipelining?: boolean;
  /** How many connections follow the script; later ones take the mail. Default: all. */
  times?: number;
  /** The greeting waits for this (a slow server), on the scripted connections. */
  greetAfter?: Promise<void>;
}

export interface ScriptedSmtp {
  /** With a user and password, so nodemailer logs in (AUTH PLAIN). */
  url: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Messages received whole (up to their final dot), whatever the server answered. */
  messages: string[];
  /** Messages it answered 250: the mails that arrived. */
  accepted: string[];
  close(): Promise<void>;
}

const CRLF = '\r\n';

function ehloReply(script: SmtpScript, scripted: boolean): string {
  const caps = ['scripted.test', 'AUTH PLAIN LOGIN', 'SIZE 10485760', '8BITMIME'];
  if (script.pipelining) caps.push('PIPELINING');
  if (scripted && script.hangUp === 'STARTTLS') caps.push('STARTTLS');
  return caps.map((c, i) => `250${i === caps.length - 1 ? ' ' : '-'}${c}`).join(CRLF);
}

/** One connection: `hangUp` only when `scripted` (the first `times` connections). */
interface Mailbox {
  messages: string[];
  accepted: string[];
}

function converse(socket: Socket, script: SmtpScript, scripted: boolean, box: Mailbox): void {
  const at = scripted ? script.hangUp : undefined;
  let buffered = '';
  let data = false;
  let gone = false;
  const hangUp = () => {
    gone = true;
    socket.destroy();
  };
  // Written whole before the hang-up, so the client reads the reply and then sees the close.
  const replyThenHangUp = (reply: string) => {
    gone = true;
    socket.write(reply + CRLF, () => socket.destroy());
  };
  const reply = (line: string, step: HangUp) => (at === step ? replyThenHangUp(line) : socket.write(line + CRLF));

  const command = (line: string) => {
    const verb = line.split(' ')[0]!.toUpperCase();
    const refusal = scripted ? script.refuse?.[verb as keyof NonNullable<SmtpScript['refuse']>] : undefined;
    if (refusal) return socket.write(refusal + CRLF);
    if (verb === 'EHLO') return at === 'HELO' ? socket.write(`502 5.5.2 EHLO not here${CRLF}`) : reply(ehloReply(script, scripted), 'EHLO');
    if (verb === 'HELO' || verb === 'STARTTLS' || verb === 'AUTH') {
      if (at === verb) return hangUp();
      return socket.write(verb === 'AUTH' ? `235 2.7.0 accepted${CRLF}` : `250 scripted.test${CRLF}`);
    }
    if (verb === 'MAIL') return reply('250 2.1.0 ok', 'MAIL');
    if (verb === 'RCPT') return reply('250 2.1.5 ok', 'RCPT');
    if (verb === 'DATA') {
      data = true;
      return reply('354 go ahead', 'DATA');
    }
    if (verb === 'QUIT') return socket.end(`221 2.0.0 bye${CRLF}`);
    return socket.write(verb === 'RSET' || verb === 'NOOP' ? `250 2.0.0 ok${CRLF}` : `502 5.5.1 unknown${CRLF}`);
  };

  const message = () => {
    const end = buffered.indexOf(`${CRLF}.${CRLF}`);
    if (at === 'message' && end < 0 && buffered.length > 0) return hangUp();
    if (end < 0) return;
    const whole = buffered.slice(0, end + 2);
    box.messages.push(whole);
    buffered = buffered.slice(end + 5);
    data = false;
    if (at === 'message' || at === 'dot') return hangUp();
    const final = scripted && script.finalReply ? script.finalReply : '250 2.0.0 queued';
    if (final.startsWith('250')) box.accepted.push(whole);
    socket.write(final + CRLF);
  };

  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    while (!gone) {
      if (data) {
        message();
        if (data) return;
        continue;
      }
      const nl = buffered.indexOf(CRLF);
      if (nl < 0) return;
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 2);
      command(line);
    }
  });
  socket.on('error', () => undefined);
  if (at === 'connect') return hangUp();
  const greet = () => (at === 'greeting' ? replyThenHangUp('220 scripted.test ESMTP') : socket.write(`220 scripted.test ESMTP${CRLF}`));
  if (scripted && script.greetAfter) void script.greetAfter.then(() => !gone && !socket.destroyed && greet());
  else greet();
}

export async function startScriptedSmtp(script: SmtpScript): Promise<ScriptedSmtp> {
  const box: Mailbox = { messages: [], accepted: [] };
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    connections++;
    converse(socket, script, connections <= (script.times ?? Infinity), box);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `smtp://mailer:s3cret@127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    ...box,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
