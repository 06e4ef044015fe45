// Masks of a column (docs/formats.md#masked-columns): what a template column's `mask` and the
// project setting `mask_columns` may say. Pure vocabulary: the masking itself is
// domain/formats/mask/'s; the API, the template schema and the project settings validate with these.
import { z } from 'zod';

/** The named masks: how many characters each keeps at the start and the end (hash and email are their own). */
export const MASK_PRESETS = ['phone', 'id_card', 'bank_card', 'email', 'name', 'hash'] as const;
export type MaskPreset = (typeof MASK_PRESETS)[number];

/** The most characters `keep_start` or `keep_end` may keep. */
export const MASK_KEEP_MAX = 64;
/** Columns one project's `mask_columns` may name, and the longest name. */
export const MASK_COLUMNS_MAX = 200;
export const MASK_COLUMN_NAME_MAX = 255;

const keep = z.number().int().min(0).max(MASK_KEEP_MAX);

export const maskSchema = z
  .union([z.enum(MASK_PRESETS), z.strictObject({ keep_start: keep.default(0), keep_end: keep.default(0) })])
  .describe(
    'A mask: phone (first 3 and last 4 characters kept), id_card and bank_card (first 6, last 4), email (first character of the local part, ***, @ and the domain), name (first character), hash (HMAC-SHA256 under the project key, hex), or {keep_start, keep_end}; every hidden character becomes one *.',
  );

/** A column's mask: a preset, or the characters kept at each end (the rest become `*`). */
export type MaskSpec = MaskPreset | { keep_start: number; keep_end: number };

/** Column (source key) → mask: the project's `mask_columns`, and a sheet's whole plan. */
export type MaskPlan = Record<string, MaskSpec>;

// Names are counted in code points, as JSON Schema counts them; a name is a source key, any text.
const columnName = z
  .string()
  .min(1)
  .refine((s) => [...s].length <= MASK_COLUMN_NAME_MAX, `at most ${MASK_COLUMN_NAME_MAX} characters`);

export const maskColumnsSchema = z
  .record(columnName, maskSchema)
  .refine((m) => Object.keys(m).length <= MASK_COLUMNS_MAX, `at most ${MASK_COLUMNS_MAX} columns`);

/** Whether a plan asks for the project's hash key (only then is it read). */
export const plansHash = (plan: MaskPlan | undefined): boolean => !!plan && Object.values(plan).some((m) => m === 'hash');
