// Reads Prometheus text exposition into sample values, so tests can compare a scrape before and
// after something happened.
export type Samples = Map<string, number>;

/** `name{a="1",b="2"}` (labels sorted) → value; HELP/TYPE lines and comments skipped. */
export function parseProm(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = [...(m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}="${v}"`).sort();
    out.set(`${m[1]}{${labels.join(',')}}`, Number(m[4]));
  }
  return out;
}

/** The value of one sample; `labels` must list every label of the series (0 when absent). */
export function sample(s: Samples, name: string, labels: Record<string, string> = {}): number {
  const key = `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(',')}}`;
  return s.get(key) ?? 0;
}

/** Every series name present. */
export const names = (s: Samples): Set<string> => new Set([...s.keys()].map((k) => k.slice(0, k.indexOf('{'))));
