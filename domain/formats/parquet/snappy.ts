// Snappy compression of one page (ADR 0050): the format's own scheme (a hash of 4 bytes finds an
// earlier match within the 64 KiB block, literals between), written straight into one buffer of
// the format's worst-case size, so a page costs one allocation and no copying as it grows.

const BLOCK = 65_536;
const HASH_BITS = 14;
const table = new Int32Array(1 << HASH_BITS);

const hash = (v: number) => Math.imul(v, 0x1e35a7bd) >>> (32 - HASH_BITS);

function literal(input: Uint8Array, from: number, to: number, out: Uint8Array, o: number): number {
  const n = to - from - 1;
  if (n < 60) out[o++] = n << 2;
  else {
    const bytes = n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4;
    out[o++] = (59 + bytes) << 2;
    for (let k = 0; k < bytes; k++) out[o++] = (n >>> (8 * k)) & 0xff;
  }
  if (to - from < 16) for (let k = from; k < to; k++) out[o++] = input[k]!;
  else {
    out.set(input.subarray(from, to), o);
    o += to - from;
  }
  return o;
}

function copy(out: Uint8Array, o: number, offset: number, len: number): number {
  // At most 64 bytes a copy; what is left never falls below the 4 a copy needs.
  while (len >= 68) {
    out[o++] = 2 | (63 << 2);
    out[o++] = offset & 0xff;
    out[o++] = offset >>> 8;
    len -= 64;
  }
  if (len > 64) {
    out[o++] = 2 | (59 << 2);
    out[o++] = offset & 0xff;
    out[o++] = offset >>> 8;
    len -= 60;
  }
  if (len < 12 && offset < 2048) {
    out[o++] = 1 | ((len - 4) << 2) | ((offset >>> 8) << 5);
    out[o++] = offset & 0xff;
  } else {
    out[o++] = 2 | ((len - 1) << 2);
    out[o++] = offset & 0xff;
    out[o++] = offset >>> 8;
  }
  return o;
}

/** One block [start, end) of at most 64 KiB: its matches point inside it only. */
function block(input: Uint8Array, start: number, end: number, out: Uint8Array, o: number): number {
  let emitted = start;
  if (end - start >= 15) {
    // Four bytes at a time, little-endian, through one view (a byte at a time cost four loads).
    const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
    table.fill(-1);
    const limit = end - 15;
    let ip = start + 1;
    outer: for (;;) {
      // Look for a match, stepping faster the longer none is found (incompressible data).
      let skip = 32;
      let next = ip;
      let candidate: number;
      let here: number;
      do {
        ip = next;
        next = ip + (skip++ >> 5);
        if (ip > limit) break outer;
        here = view.getInt32(ip, true);
        const h = hash(here);
        candidate = table[h]!;
        table[h] = ip;
      } while (candidate < start || view.getInt32(candidate, true) !== here);
      o = literal(input, emitted, ip, out, o);
      do {
        const base = ip;
        let len = 4;
        while (ip + len + 4 <= end && view.getInt32(ip + len, true) === view.getInt32(candidate + len, true)) len += 4;
        while (ip + len < end && input[ip + len] === input[candidate + len]) len++;
        ip += len;
        o = copy(out, o, base - candidate, len);
        emitted = ip;
        if (ip >= limit) break outer;
        table[hash(view.getInt32(ip - 1, true))] = ip - 1;
        here = view.getInt32(ip, true);
        const h = hash(here);
        candidate = table[h]!;
        table[h] = ip;
      } while (candidate >= start && view.getInt32(candidate, true) === here);
      ip++;
    }
  }
  return emitted < end ? literal(input, emitted, end, out, o) : o;
}

/**
 * `input` compressed, in a buffer of its own. `work.room`, the format's worst case, is kept by the
 * caller from page to page: only the compressed bytes are copied out of it.
 */
export function snappyCompress(input: Uint8Array, work: { room: Buffer } = { room: Buffer.alloc(0) }): Uint8Array {
  const n = input.length;
  if (work.room.length < 32 + n + Math.floor(n / 6)) work.room = Buffer.allocUnsafe(32 + n + Math.floor(n / 6));
  const out = work.room;
  let o = 0;
  for (let v = n; ; v >>>= 7) {
    if (v < 0x80) {
      out[o++] = v;
      break;
    }
    out[o++] = (v & 0x7f) | 0x80;
  }
  for (let at = 0; at < n; at += BLOCK) o = block(input, at, Math.min(at + BLOCK, n), out, o);
  return Buffer.from(out.subarray(0, o));
}
