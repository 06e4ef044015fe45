// The part of ssh2's API that domain/destinations/sftp-session.ts uses. ssh2 ships no types, and
// @types/ssh2 pins @types/node 18 (a second copy of Node's globals beside ours): these few lines
// say what we call, from ssh2 1.17's lib/client.js and lib/protocol/SFTP.js.
declare module 'ssh2' {
  import type { EventEmitter } from 'node:events';

  export interface ConnectConfig {
    host: string;
    port: number;
    username: string;
    password?: string;
    privateKey?: string;
    passphrase?: string;
    /** Called with the server's host key blob (no hostHash set); false ends the handshake. */
    hostVerifier?: (key: Buffer) => boolean;
    readyTimeout?: number;
    keepaliveInterval?: number;
    keepaliveCountMax?: number;
    tryKeyboard?: boolean;
    /** The host key algorithms offered, in order (ssh2's default list when absent). */
    algorithms?: { serverHostKey?: string[] };
    /** ssh2's trace of the handshake, one line a call. */
    debug?: (line: string) => void;
    /** No agent, no keyboard-interactive: only what the config gives. */
    agent?: undefined;
  }

  export interface Stats {
    size?: number;
    mode?: number;
    isDirectory(): boolean;
    isFile(): boolean;
  }

  type Done = (err: (Error & { code?: number | string }) | undefined | null) => void;

  export interface SFTPWrapper extends EventEmitter {
    open(path: string, flags: string, cb: (err: (Error & { code?: number }) | undefined, handle: Buffer) => void): void;
    close(handle: Buffer, cb: Done): void;
    read(handle: Buffer, buf: Buffer, off: number, len: number, position: number, cb: (err: Error | undefined, bytesRead: number) => void): void;
    write(handle: Buffer, buf: Buffer, off: number, len: number, position: number, cb: Done): void;
    stat(path: string, cb: (err: (Error & { code?: number }) | undefined, stats: Stats) => void): void;
    mkdir(path: string, cb: Done): void;
    rename(from: string, to: string, cb: Done): void;
    unlink(path: string, cb: Done): void;
    ext_openssh_rename(from: string, to: string, cb: Done): void;
    ext_openssh_fsync(handle: Buffer, cb: Done): void;
    /** The server's extensions and their versions (`posix-rename@openssh.com: '1'` …). */
    _extensions: Record<string, string>;
    end(): void;
  }

  export interface ParsedKey {
    type: string;
    isPrivateKey(): boolean;
  }

  export const utils: {
    /** A key (or the first of several), or the Error saying why it does not parse (a wrong or missing passphrase included). */
    parseKey(data: string, passphrase?: string): ParsedKey | ParsedKey[] | Error;
  };

  export class Client extends EventEmitter {
    connect(config: ConnectConfig): this;
    sftp(cb: (err: Error | undefined, sftp: SFTPWrapper) => void): void;
    end(): this;
    destroy(): this;
  }
}
