// The workflow bundle's text as every process that runs workflows keeps it (docs/adr/0055-idle-memory-of-npm-start.md).

// As the SDK finds it (webpack writes `data:application/json;charset=utf-8;base64,`).
const MAP_COMMENT = '//# sourceMappingURL=data:';

/** The bundle as written to disk: its inline source map without the sources' text, at one byte a character. */
export function bundleText(code: string): string {
  return oneByteSource(withoutSourcesContent(code));
}

/**
 * `code` with its inline source map's `sourcesContent` left out. Each process running workflows
 * holds the bundle's text (the map's base64 inside it) and the parsed map (for stack traces); the
 * sources' own text was 0.65 of the map's 0.9 MB, and is read by debuggers only: a stack trace
 * needs the mappings and the file names, which stay. The SDK requires an inline map, so it stays.
 */
export function withoutSourcesContent(code: string): string {
  const at = code.lastIndexOf(MAP_COMMENT);
  const data = at < 0 ? -1 : code.indexOf('base64,', at);
  if (data < 0) return code;
  const map = JSON.parse(Buffer.from(code.slice(data + 'base64,'.length).trim(), 'base64').toString('utf8')) as Record<string, unknown>;
  delete map.sourcesContent;
  return `${code.slice(0, data + 'base64,'.length)}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}

/**
 * `code` with each character beyond Latin-1 written as a `\uXXXX` escape. V8 keeps a source of
 * Latin-1 characters at one byte a character and any other at two: three dashes in the SDK's comments
 * made the 1.8 MB bundle a 3.5 MB string in each process holding it. An escape means the same
 * character in a string, template, regular expression or identifier, and is plain text in a comment;
 * only a raw template (String.raw) or a function's own source text would read it differently.
 */
export function oneByteSource(code: string): string {
  return code.replace(/[^\x00-\xff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
