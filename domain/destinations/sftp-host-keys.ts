// Which host key a server shows depends on the types the client offers: ssh2 prefers Ed25519, then
// ECDSA, then RSA, so a destination pinned to the server's RSA key would see its Ed25519 key and
// fail although the server holds the pinned one. When the key shown is not the pinned one, the
// session connects again offering one other key type at a time (only the types the server named in
// its first handshake, when it named them), and takes the key that matches: at most one connection
// per key type, and still nothing of the credentials goes to a server before its key matched.

/** One host key type (the type in the key blob) and the signature algorithms that use it, in ssh2's order. */
const FAMILIES: readonly { type: string; algorithms: string[] }[] = [
  { type: 'ssh-ed25519', algorithms: ['ssh-ed25519'] },
  { type: 'ecdsa-sha2-nistp256', algorithms: ['ecdsa-sha2-nistp256'] },
  { type: 'ecdsa-sha2-nistp384', algorithms: ['ecdsa-sha2-nistp384'] },
  { type: 'ecdsa-sha2-nistp521', algorithms: ['ecdsa-sha2-nistp521'] },
  { type: 'ssh-rsa', algorithms: ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] },
];

/** The key type a host key blob names: its first SSH string (RFC 4253 §6.6). */
export function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return '';
  const length = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + Math.min(length, 64)).toString('latin1');
}

/**
 * The algorithm lists to offer, one per key type not yet seen: those the server named (its
 * KEXINIT's host key algorithms) when known, else every type ssh2 speaks.
 */
export function otherHostKeyOffers(seenTypes: readonly string[], serverOffers: readonly string[] | undefined): string[][] {
  return FAMILIES.filter((f) => !seenTypes.includes(f.type))
    .map((f) => (serverOffers ? f.algorithms.filter((a) => serverOffers.includes(a)) : f.algorithms))
    .filter((algorithms) => algorithms.length > 0);
}

/** The host key algorithms the server offers, read from ssh2's handshake trace (its only report of them). */
export function serverOffersIn(line: string): string[] | undefined {
  const m = /^Handshake: \(remote\) Host key format: (.*)$/.exec(line);
  return m ? m[1]!.split(',').filter(Boolean) : undefined;
}
