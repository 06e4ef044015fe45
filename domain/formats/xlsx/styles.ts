// The workbook's style table. Every distinct look gets one cellXfs index; the sheet refers to it by
// number, so a million styled rows cost one attribute each and the table stays small.
import { esc, NS_MAIN, XML_HEAD } from './xml.js';

export interface XfSpec {
  numFmt?: string | undefined;
  bold?: boolean | undefined;
  italic?: boolean | undefined;
  underline?: boolean | undefined;
  /** ARGB */
  color?: string | undefined;
  size?: number | undefined;
  fill?: string | undefined;
  border?: boolean | undefined;
  h?: 'left' | 'center' | 'right' | undefined;
  v?: 'top' | 'middle' | 'bottom' | undefined;
  wrap?: boolean | undefined;
  /** Excel's own marker for text that must never be read as a formula or number on edit. */
  quotePrefix?: boolean | undefined;
}

export const FONT_NAME = 'Calibri';
export const FONT_SIZE = 11;
const BORDER_COLOR = 'FFBFBFBF';
const BUILTIN_FORMATS: Record<string, number> = { General: 0, '0': 1, '0.00': 2, '#,##0': 3, '#,##0.00': 4, '0%': 9, '0.00%': 10, '0.00E+00': 11, '@': 49 };

type FontSpec = Pick<XfSpec, 'bold' | 'italic' | 'underline' | 'color' | 'size'>;

export function fontXml(f: FontSpec, tag = 'font', nameTag = 'name'): string {
  return (
    `<${tag}>${f.bold ? '<b/>' : ''}${f.italic ? '<i/>' : ''}${f.underline ? '<u/>' : ''}<sz val="${f.size ?? FONT_SIZE}"/>` +
    `${f.color ? `<color rgb="${f.color}"/>` : ''}<${nameTag} val="${FONT_NAME}"/><family val="2"/></${tag}>`
  );
}

class Table {
  readonly items: string[] = [];
  private readonly index = new Map<string, number>();
  constructor(initial: string[] = []) {
    for (const i of initial) this.id(i);
  }
  id(xml: string): number {
    let n = this.index.get(xml);
    if (n === undefined) {
      n = this.items.push(xml) - 1;
      this.index.set(xml, n);
    }
    return n;
  }
}

export class StyleSheet {
  private readonly fonts = new Table([fontXml({})]);
  private readonly fills = new Table(['<fill><patternFill patternType="none"/></fill>', '<fill><patternFill patternType="gray125"/></fill>']);
  private readonly borders = new Table([
    '<border><left/><right/><top/><bottom/><diagonal/></border>',
    `<border>${['left', 'right', 'top', 'bottom'].map((s) => `<${s} style="thin"><color rgb="${BORDER_COLOR}"/></${s}>`).join('')}<diagonal/></border>`,
  ]);
  private readonly formats = new Map<string, number>();
  private readonly xfs = new Table(['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>']);
  /** Set once styles.xml is written: a look first seen after that would point past the table. */
  private written = false;

  private numFmtId(code: string | undefined): number {
    if (!code) return 0;
    // Own entries only: a format spelt `constructor` is a custom format, not Object's function.
    if (Object.hasOwn(BUILTIN_FORMATS, code)) return BUILTIN_FORMATS[code]!;
    let id = this.formats.get(code);
    if (id === undefined) {
      id = 164 + this.formats.size;
      this.formats.set(code, id);
    }
    return id;
  }

  /** The cellXfs index of a look (registered on first use). */
  xf(s: XfSpec): number {
    const fontId = this.fonts.id(fontXml(s));
    const fillId = s.fill ? this.fills.id(`<fill><patternFill patternType="solid"><fgColor rgb="${s.fill}"/><bgColor indexed="64"/></patternFill></fill>`) : 0;
    const borderId = s.border ? 1 : 0;
    const numFmtId = this.numFmtId(s.numFmt);
    const align = s.h || s.v || s.wrap ? `<alignment${s.h ? ` horizontal="${s.h}"` : ''}${s.v ? ` vertical="${s.v === 'middle' ? 'center' : s.v}"` : ''}${s.wrap ? ' wrapText="1"' : ''}/>` : '';
    const attrs =
      `numFmtId="${numFmtId}" fontId="${fontId}" fillId="${fillId}" borderId="${borderId}" xfId="0"` +
      `${numFmtId ? ' applyNumberFormat="1"' : ''}${fontId ? ' applyFont="1"' : ''}${fillId ? ' applyFill="1"' : ''}` +
      `${borderId ? ' applyBorder="1"' : ''}${align ? ' applyAlignment="1"' : ''}${s.quotePrefix ? ' quotePrefix="1"' : ''}`;
    const xml = align ? `<xf ${attrs}>${align}</xf>` : `<xf ${attrs}/>`;
    const before = this.xfs.items.length;
    const id = this.xfs.id(xml);
    // An invariant of the writer (every style is registered before styles.xml), not a failure to report.
    if (this.written && this.xfs.items.length !== before) throw new Error('a cell style was registered after styles.xml was written');
    return id;
  }

  toXml(): string {
    this.written = true;
    const list = (tag: string, items: string[]) => `<${tag} count="${items.length}">${items.join('')}</${tag}>`;
    const fmts = [...this.formats].map(([code, id]) => `<numFmt numFmtId="${id}" formatCode="${esc(code)}"/>`);
    return (
      `${XML_HEAD}<styleSheet xmlns="${NS_MAIN}">` +
      (fmts.length ? list('numFmts', fmts) : '') +
      list('fonts', this.fonts.items) +
      list('fills', this.fills.items) +
      list('borders', this.borders.items) +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      list('cellXfs', this.xfs.items) +
      '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
      '</styleSheet>'
    );
  }
}
