// The workflow bundle's text as every process that runs workflows keeps it (docs/adr/0055-idle-memory-of-npm-start.md).

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
