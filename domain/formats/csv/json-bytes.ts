// Scanning a JSON text as bytes, for the CSV transcoder (transcode.ts): positions, flags and
// validation only, never a string or object made. Anything outside the grammar gives up (GiveUp),
// and the caller falls back to JSON.parse, whose error the user then sees.

/** The text is not one the byte path handles: the caller parses it as JSON instead. */
export class GiveUp extends Error {}
export const giveUp = (): never => {
  throw new GiveUp('not a plain page');
};

/** Flags of the last string scanned. */
export const FLAG_ESCAPE = 1;
/** The string holds the CSV delimiter (`sep`, a comma unless the dialect names another). */
export const FLAG_COMMA = 2;

export abstract class JsonBytes {
  protected b: Buffer = Buffer.alloc(0);
  protected i = 0;
  protected flags = 0;
  /** The byte FLAG_COMMA looks for. */
  protected sep = 0x2c;

  /** Past a string (at its opening quote); sets FLAG_ESCAPE / FLAG_COMMA. */
  protected string(): void {
    const b = this.b;
    const n = b.length;
    if (b[this.i] !== 0x22) giveUp();
    let j = this.i + 1;
    let flags = 0;
    const sep = this.sep;
    for (;;) {
      if (j >= n) giveUp();
      const c = b[j]!;
      if (c === 0x22) break;
      if (c === 0x5c) {
        flags |= FLAG_ESCAPE;
        j += 2;
        continue;
      }
      if (c < 0x20) giveUp();
      if (c === sep) flags |= FLAG_COMMA;
      j++;
    }
    this.flags = flags;
    this.i = j + 1;
  }

  /** Past an object or array, strings inside respected (validated afterwards by JSON.parse). */
  protected skipNested(): void {
    let depth = 0;
    for (;;) {
      const c = this.b[this.i];
      if (c === undefined) giveUp();
      if (c === 0x22) {
        this.string();
        continue;
      }
      this.i++;
      if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && --depth === 0) return;
    }
  }

  protected literal(word: string): void {
    for (let k = 0; k < word.length; k++) if (this.b[this.i + k] !== word.charCodeAt(k)) giveUp();
    this.i += word.length;
  }

  /**
   * A JSON number; true when String(Number(text)) is the text itself: no exponent, not -0, no
   * trailing zero in a fraction, at most 15 digits (so the value is exact and shortest), and not
   * below 1e-6 (which JavaScript writes with an exponent).
   */
  protected number(): boolean {
    const b = this.b;
    const s = this.i;
    let j = s;
    if (b[j] === 0x2d) j++;
    const intStart = j;
    if (b[j] === 0x30) j++;
    else if (b[j]! >= 0x31 && b[j]! <= 0x39) while (b[j]! >= 0x30 && b[j]! <= 0x39) j++;
    else giveUp();
    let digits = j - intStart;
    let verbatim = true;
    if (b[j] === 0x2e) {
      const f = ++j;
      while (b[j]! >= 0x30 && b[j]! <= 0x39) j++;
      if (j === f) giveUp();
      digits += j - f;
      if (b[j - 1] === 0x30) verbatim = false;
      if (b[intStart] === 0x30 && j - f >= 7 && b.toString('latin1', f, f + 6) === '000000') verbatim = false;
    } else if (b[s] === 0x2d && b[intStart] === 0x30) verbatim = false;
    if (b[j] === 0x65 || b[j] === 0x45) {
      verbatim = false;
      j++;
      if (b[j] === 0x2b || b[j] === 0x2d) j++;
      const e = j;
      while (b[j]! >= 0x30 && b[j]! <= 0x39) j++;
      if (j === e) giveUp();
    }
    this.i = j;
    return verbatim && digits <= 15;
  }

  protected expect(c: number): void {
    if (this.b[this.i] !== c) giveUp();
    this.i++;
  }

  protected ws(): void {
    const b = this.b;
    let c = b[this.i];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++this.i];
  }
}
