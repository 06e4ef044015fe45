// Generated source pages for the JSON-bytes transcoders' tests (test/unit/csv-transcode.test.ts,
// test/unit/jsonl-transcode.test.ts): plain, tricky and malformed JSON, seeded so a failure repeats.

/** mulberry32: a seeded generator, so a failure is the same failure on every run. */
export function rng(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!, chance: (p: number) => next() < p };
}

const STRINGS = ['', 'plain', 'a,b', 'say "hi"', 'line\nbreak', 'cr\rhere', '\ttab', '=1+1', '+86 123', '-12.5', '-x', '@home', '＝SUM(A1)', '＋1', '－', '＠x', '客户 12', '😀 emoji', '\u0000nul', '\u2028sep', '\ud800lone', 'back\\slash', 'a/b', '\ufeffbom', ' lead', 'trail ', '"', ',', 'ｘ＝1', '€'];
const NUMBERS = ['0', '-0', '1', '-1', '12.5', '1.50', '1.0', '1e5', '1E-7', '-2.5e+3', '0.000001', '0.0000001', '0.0000012', '123456789012345', '1234567890123456', '12345678901234567890', '0.1', '3.14159265358979', '3.141592653589793', '9007199254740993', '100', '1e21', '-0.5', '-0.0', '792.3', '0.30000000000000004'];
const NESTED = ['{"a":1}', '[1,"=x"]', '[]', '{}', '{ "k" : [ 1 , 2.50 ] }', '{"a":"]}"}', '[null,true,{"x":"y,z"}]', '{"\\u0041":"\\n"}'];
const WS = ['', '', '', ' ', '\n', '\r\n  ', '\t'];

export type R = ReturnType<typeof rng>;

/** A JSON string literal, sometimes with escapes where none are needed (\/ and \u00xx). */
function str(r: R, s: string): string {
  const json = JSON.stringify(s);
  if (!r.chance(0.15) || s.length === 0) return json;
  return json.replace(/[a-z/]/, (c) => (c === '/' ? '\\/' : `\\u00${c.charCodeAt(0).toString(16)}`));
}

function value(r: R): string {
  const k = r.next();
  if (k < 0.5) return str(r, r.pick(STRINGS) + (r.chance(0.3) ? String(Math.floor(r.next() * 1000)) : ''));
  if (k < 0.8) return r.pick(NUMBERS);
  if (k < 0.9) return r.pick(['true', 'false', 'null']);
  return r.pick(NESTED);
}

export function page(r: R, keys: string[]): string {
  const w = () => r.pick(WS);
  const rows: string[] = [];
  const n = r.chance(0.1) ? 0 : 1 + Math.floor(r.next() * 6);
  for (let i = 0; i < n; i++) {
    const entries: string[] = [];
    const order = r.chance(0.3) ? [...keys].sort(() => r.next() - 0.5) : keys;
    for (const key of order) {
      if (r.chance(0.1)) continue;
      entries.push(`${w()}${str(r, key)}${w()}:${w()}${value(r)}${w()}`);
      if (r.chance(0.05)) entries.push(`${str(r, key)}:${value(r)}`); // a duplicate: the last wins
    }
    if (r.chance(0.1)) entries.push(`"extra":${value(r)}`);
    rows.push(`${w()}{${entries.join(',')}}${w()}`);
  }
  const total = r.chance(0.9) ? String(n) : r.pick(['1.0', '-1', '1e1', '"3"', '12']);
  const parts = [`${w()}"total"${w()}:${w()}${total}`, `"data":${w()}[${rows.join(',')}]`];
  if (r.chance(0.2)) parts.push(`"template":${r.pick(NESTED)}`, `"footer":${value(r)}`);
  if (r.chance(0.5)) parts.reverse();
  return `${w()}{${parts.join(`,${w()}`)}}${w()}`;
}


/** The column sets the generated pages are checked with: plain keys, keys that need escapes, one key. */
const COLUMN_SETS = [['id', 'name', 'amount', 'note'], ['客户', 'a"b', 'x\\y', 'missing'], ['only']];

/**
 * `pages` generated pages (seeded), each with one of the column sets and sometimes a key no column
 * takes, given to `check` (true: the transcoder took the page); how many were taken.
 */
export function generatedPages(check: (text: string, keys: string[]) => boolean, pages = 3000): number {
  const r = rng(20261124);
  let taken = 0;
  for (let i = 0; i < pages; i++) {
    const keys = r.pick(COLUMN_SETS);
    if (check(page(r, keys.concat(r.chance(0.2) ? ['other'] : [])), keys)) taken++;
  }
  return taken;
}

/** `count` pages of id, name and amount, each with one byte put in or replaced at random (seeded). */
export function* mutatedPages(count = 4000): Generator<string> {
  const r = rng(7);
  const bytes = ['', ',', '"', '\\', '{', '}', '[', ']', ':', '0', '-', '.', 'e', 'x', ' ', '\u0001', '\n'];
  for (let i = 0; i < count; i++) {
    const text = page(r, ['id', 'name', 'amount']);
    const at = Math.floor(r.next() * text.length);
    yield text.slice(0, at) + r.pick(bytes) + text.slice(at + (r.chance(0.5) ? 1 : 0));
  }
}
