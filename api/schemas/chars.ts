// Text lengths as the document states them. JSON Schema's maxLength counts characters (code points);
// zod's max counts UTF-16 units, so an emoji counts twice there: a name the document allows would be
// refused (the API fuzzer finds that). These fields count code points and say so in the document.
import { z } from '@hono/zod-openapi';

/** At most `max` characters, as JSON Schema counts them. */
export const maxChars = (max: number) => limit(z.string(), max);

/** Trimmed, 1 to `max` characters. */
export const requiredChars = (max: number) => limit(z.string().trim().min(1), max).openapi({ minLength: 1 });

function limit(base: z.ZodString, max: number) {
  return base.refine((s) => [...s].length <= max, `at most ${max} characters`).openapi({ maxLength: max });
}
