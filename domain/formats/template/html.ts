// The summary's basic HTML → rich-text runs: b/strong, i/em, u, br, p/div, span style="color…"
// and font color="…". Everything else is reduced to its text. htmlparser2 does the parsing and
// entity decoding; this file only keeps the formatting stack.
import { Parser } from 'htmlparser2';
import { NAMED_COLORS } from './schema.js';

export interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  /** ARGB */
  color?: string;
}

type Look = Omit<Run, 'text'>;

const VOID = new Set(['br', 'img', 'hr', 'wbr', 'input', 'meta', 'link']);
const BLOCK = new Set(['p', 'div', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'ul', 'ol', 'table']);
const SKIP = new Set(['script', 'style', 'head', 'title']);

/** CSS-ish colour → ARGB: #rgb, #rrggbb, rgb(r, g, b), or a name. */
export function cssColor(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const s = raw.trim().toLowerCase();
  // Own names only: `constructor` is no colour (it would put a function's text into styles.xml).
  if (Object.hasOwn(NAMED_COLORS, s)) return NAMED_COLORS[s];
  let m = /^#([0-9a-f]{3})$/.exec(s);
  if (m) return `FF${[...m[1]!].map((c) => c + c).join('')}`.toUpperCase();
  m = /^#([0-9a-f]{6})$/.exec(s);
  if (m) return `FF${m[1]!}`.toUpperCase();
  m = /^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})/.exec(s);
  if (m) return `FF${m.slice(1, 4).map((n) => Math.min(255, +n!).toString(16).padStart(2, '0')).join('')}`.toUpperCase();
  return undefined;
}

function lookOf(tag: string, attrs: Record<string, string>): Look {
  const look: Look = {};
  if (tag === 'b' || tag === 'strong') look.bold = true;
  if (tag === 'i' || tag === 'em') look.italic = true;
  if (tag === 'u') look.underline = true;
  if (tag === 'font') look.color = cssColor(attrs.color);
  const style = attrs.style ?? '';
  const color = /(?:^|;)\s*color\s*:\s*([^;]+)/i.exec(style)?.[1];
  if (color) look.color = cssColor(color) ?? look.color;
  if (/font-weight\s*:\s*(bold|[6-9]00)/i.test(style)) look.bold = true;
  if (/font-style\s*:\s*italic/i.test(style)) look.italic = true;
  if (/text-decoration[^;]*underline/i.test(style)) look.underline = true;
  for (const k of Object.keys(look) as (keyof Look)[]) if (look[k] === undefined) delete look[k];
  return look;
}

const sameLook = (a: Look, b: Look) => a.bold === b.bold && a.italic === b.italic && a.underline === b.underline && a.color === b.color;

/** Rich-text runs of `html`. Plain text without tags keeps its own line breaks. */
export function htmlToRuns(html: string): Run[] {
  const hasTags = /<\/?[a-z][^>]*>/i.test(html);
  const runs: Run[] = [];
  const stack: { tag: string; look: Look }[] = [];
  let skipping = 0;
  const current = (): Look => Object.assign({}, ...stack.map((s) => s.look));
  const push = (text: string) => {
    if (!text) return;
    const look = current();
    const last = runs[runs.length - 1];
    if (last && sameLook(last, look)) last.text += text;
    else runs.push({ text, ...look });
  };
  const endsWithBreak = () => runs.length === 0 || runs[runs.length - 1]!.text.endsWith('\n');
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (SKIP.has(name)) skipping++;
        if (name === 'br') push('\n');
        else if (BLOCK.has(name) && !endsWithBreak()) push('\n');
        if (!VOID.has(name)) stack.push({ tag: name, look: lookOf(name, attrs) });
      },
      ontext(text) {
        if (skipping) return;
        // HTML collapses white space; only br and blocks break lines.
        push(hasTags ? text.replace(/\s+/g, ' ') : text.replace(/\r\n?/g, '\n'));
      },
      onclosetag(name) {
        if (SKIP.has(name)) skipping = Math.max(0, skipping - 1);
        if (VOID.has(name)) return;
        const at = stack.map((s) => s.tag).lastIndexOf(name);
        if (at >= 0) stack.length = at;
        if (BLOCK.has(name) && !endsWithBreak()) push('\n');
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  // Trim the breaks and spaces a block structure leaves at the edges.
  while (runs.length && !runs[runs.length - 1]!.text.replace(/[\s]+$/, '')) runs.pop();
  if (runs.length) runs[runs.length - 1]!.text = runs[runs.length - 1]!.text.replace(/\s+$/, '');
  while (runs.length && !runs[0]!.text.trim()) runs.shift();
  if (runs.length) runs[0]!.text = runs[0]!.text.replace(/^\s+/, '');
  for (const r of runs) r.text = r.text.replace(/ *\n */g, '\n');
  return runs.filter((r) => r.text.length > 0);
}

/** Plain text of the runs, e.g. to estimate how many lines the summary needs. */
export const runsText = (runs: Run[]) => runs.map((r) => r.text).join('');
