// Text of a caller's (an operator id, a file name, a project name) placed into Markdown that another
// person's UI renders: the Temporal UI's summary and details of a run.

// The characters that start Markdown syntax mid-line: links and images, raw HTML and entities,
// emphasis, code, strikethrough, tables, and the `:` and `@` of autolinks (`http://…`, `a@b.c`).
// Escaping only these keeps names readable where the text is shown raw (the Temporal CLI).
const SPECIAL = /[\\`*_[\]()<>!#~|{}:@&]/g;
// What Markdown reads only at the start of a line: a list item, a quote, a numbered item.
const LINE_START = /^([-+=>]|\d+(?=[.)]))/;

/** `text` as literal Markdown: it shows as written and renders nothing; line breaks become spaces. */
export function markdownText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(SPECIAL, (c) => `\\${c}`)
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\\.`)
    .replace(LINE_START, (m) => (/\d/.test(m) ? `${m}\\` : `\\${m}`));
}
