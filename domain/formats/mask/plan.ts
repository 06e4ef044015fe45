// A sheet's mask plan: the template's column masks, then the project's `mask_columns` over them
// (a task cannot unmask what its project masks; docs/formats.md#masked-columns).
import { type MaskPlan, maskSchema } from '../../../model/mask.js';
import { DomainError } from '../../errors.js';
import { templateMasks } from '../columns.js';

const PRESET_WORDS = 'phone, id_card, bank_card, email, name, hash, or {"keep_start": n, "keep_end": m}';

/**
 * Source key → mask. A mask the template cannot have (a source's template is not checked at
 * submission) fails the task template_invalid, naming the column, never quoting a value.
 */
export function maskPlan(template: unknown, project: MaskPlan | undefined): MaskPlan {
  const fromTemplate = templateMasks(template).map(([key, raw]): [string, MaskPlan[string]] => {
    const m = maskSchema.safeParse(raw);
    if (!m.success) throw new DomainError('template_invalid', `the template's column ${JSON.stringify(key)} has an invalid mask; a mask is ${PRESET_WORDS}`);
    return [key, m.data];
  });
  // fromEntries defines plain properties: a key named __proto__ is a column like any other.
  return Object.fromEntries([...fromTemplate, ...Object.entries(project ?? {})]);
}
