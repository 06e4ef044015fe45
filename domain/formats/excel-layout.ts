// What an Excel export is laid out by: the template (the source's first answer's, else the task's)
// and the header and footer areas, each checked once at the probe so a bad one fails the task
// before any page is fetched.
import { DomainError } from '../errors.js';
import { type Area, parseArea, storedArea } from './template/areas.js';
import { describeIssues, parseTemplate, type Template } from './template/template.js';

/** The template, or a template_invalid failure. */
export function templateOf(raw: unknown): Template | null {
  if (raw === undefined || raw === null) return null;
  const t = parseTemplate(raw);
  if (!t.ok) throw new DomainError('template_invalid', `the template is not valid: ${describeIssues(t.issues)}`);
  return t.template;
}

/** A header or footer area: the source's first answer's as sent, else the task's as stored. */
export function areaOf(which: 'header' | 'footer', fromSource: unknown, fromTask: unknown): Area | undefined {
  if (fromSource !== undefined && fromSource !== null) {
    const a = parseArea(fromSource);
    if (!a.ok) throw new DomainError('source_bad_response', `the source's ${which} is not valid: ${a.message}`);
    return a.area;
  }
  if (fromTask === undefined || fromTask === null) return undefined;
  const stored = storedArea.safeParse(fromTask);
  if (!stored.success) throw new DomainError('template_invalid', `the task's ${which} is not valid`);
  return stored.data;
}

/** What the probe checks for an Excel task: template, header and footer all usable. */
export function checkExcelLayout(template: unknown, first: { header?: unknown; footer?: unknown }, options: { header?: unknown; footer?: unknown }): void {
  templateOf(template);
  areaOf('header', first.header, options.header);
  areaOf('footer', first.footer, options.footer);
}
