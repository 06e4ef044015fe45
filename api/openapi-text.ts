// The document says what api/validate.ts refuses before any schema runs: a NUL character in any
// string of a request (body, query, path, header), object keys and free-form values included. Said
// once here, on every string schema of every request, so no route can forget it and a fuzzer never
// takes a refused NUL for a valid request. (Unpaired surrogates and bytes that are not UTF-8 are
// refused too; JSON Schema strings are Unicode text, which cannot hold them.)

/** No NUL anywhere in the string (JSON Schema patterns are unanchored, hence ^…$). */
export const NO_NUL = '^[^\\u0000]*$';
/** Any JSON value whose strings and keys hold no NUL: what a free-form (`{}`) request value is. */
const TEXT_VALUE = 'JsonValue';
const textValueRef = { $ref: `#/components/schemas/${TEXT_VALUE}` };
const textValue = {
  description: 'Any JSON value; no string or key in it may hold a NUL character.',
  anyOf: [
    { type: 'string', pattern: NO_NUL },
    { type: ['number', 'boolean', 'null'] },
    { type: 'array', items: textValueRef },
    { type: 'object', propertyNames: { pattern: NO_NUL }, additionalProperties: textValueRef },
  ],
};

/**
 * Whether a pattern might match a string holding NUL: one with `.`, a negated class, a negated or
 * property class escape, or NUL's own escape might. A pattern that lists its characters needs no
 * NO_NUL beside it, and must not get one: a second pattern under allOf is one a generator can only
 * filter by, and over a few such fields (a project's three host lists) it filters out nearly every
 * valid body (Schemathesis' filter_too_much).
 */
function mayMatchNul(pattern: string): boolean {
  if (pattern === NO_NUL) return false;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const escape = pattern.slice(i + 1, i + 6);
      if (/^([SWDpP0]|x00|u0000|u\{0+\})/.test(escape)) return true;
      i++;
    } else if (inClass) {
      inClass = ch !== ']';
    } else if (ch === '[') {
      if (pattern[i + 1] === '^') return true;
      inClass = true;
    } else if (ch === '.') {
      return true;
    }
  }
  return false;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Adds NO_NUL to a request schema: its strings, its objects' keys, its free-form values. */
function stateOn(root: unknown): void {
  const stack = [root];
  while (stack.length > 0) {
    const s = stack.pop();
    if (!isObject(s) || s.$ref !== undefined) continue;
    if (Object.keys(s).length === 0) {
      Object.assign(s, textValueRef);
      continue;
    }
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes('string') && s.enum === undefined && s.const === undefined && s.format === undefined) {
      if (s.pattern === undefined) s.pattern = NO_NUL;
      else if (mayMatchNul(String(s.pattern))) s.allOf = [...((s.allOf as unknown[]) ?? []), { pattern: NO_NUL }];
    }
    if (s.additionalProperties !== undefined && s.additionalProperties !== false && s.propertyNames === undefined) s.propertyNames = { pattern: NO_NUL };
    // The places a schema holds schemas.
    if (isObject(s.properties)) stack.push(...Object.values(s.properties));
    for (const key of ['items', 'additionalProperties', 'not']) if (isObject(s[key])) stack.push(s[key]);
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (Array.isArray(s[key])) stack.push(...(s[key] as unknown[]));
  }
}

/** The document with NO_NUL stated on every request string (parameters and request bodies). */
export function statesBadText<D extends { paths?: unknown; components?: unknown }>(doc: D): D {
  if (!isObject(doc.paths)) return doc;
  for (const item of Object.values(doc.paths)) {
    if (!isObject(item)) continue;
    for (const operation of Object.values(item)) {
      if (!isObject(operation)) continue;
      for (const p of (operation.parameters as unknown[] | undefined) ?? []) if (isObject(p)) stateOn(p.schema);
      const content = isObject(operation.requestBody) ? operation.requestBody.content : undefined;
      if (isObject(content)) for (const media of Object.values(content)) if (isObject(media)) stateOn(media.schema);
    }
  }
  const components = (doc.components ??= {} as D['components']) as Json;
  const schemas = (components.schemas ??= {}) as Json;
  schemas[TEXT_VALUE] = textValue;
  return doc;
}
