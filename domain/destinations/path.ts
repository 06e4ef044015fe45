// Where a task's files land in the destination: its prefix, then destination_path with the
// placeholders filled in. The manifest goes where a file named manifest.json would, so it sits
// beside the files it describes.

export const DEFAULT_DESTINATION_PATH = '{{task_id}}/{{file_name}}';
const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;
const KNOWN = new Set(['date', 'task_id', 'file_name']);

/** Why a destination_path is refused, or null. */
export function pathProblem(path: string): string | null {
  for (const [, name] of path.matchAll(PLACEHOLDER)) {
    if (!KNOWN.has(name!)) return `unknown placeholder {{${name}}}: use {{date}}, {{task_id}} or {{file_name}}`;
  }
  if (/[{}]/.test(path.replace(PLACEHOLDER, ''))) return 'a brace outside a {{placeholder}}';
  const segments = path.split('/');
  if (path.startsWith('/') || segments.some((s) => s === '' || s === '.' || s === '..')) return 'segments must be non-empty and neither . nor .., and no leading /';
  if (!/\{\{\s*file_name\s*\}\}/.test(segments[segments.length - 1]!)) return 'the last segment must hold {{file_name}}, so every file gets its own object';
  return null;
}

export interface PathValues {
  taskId: string;
  createdAt: Date;
}

// A file name is ours (domain/formats/file-name.ts) but may hold a slash: it must stay one segment.
const oneSegment = (s: string): string => s.replace(/[/\\]/g, '_');

/** The object key of `fileName` for the task: prefix + the filled-in path. */
export function objectKey(prefix: string, template: string | undefined, v: PathValues, fileName: string): string {
  const values: Record<string, string> = { date: v.createdAt.toISOString().slice(0, 10), task_id: v.taskId, file_name: oneSegment(fileName) };
  return prefix + (template ?? DEFAULT_DESTINATION_PATH).replace(PLACEHOLDER, (_, name: string) => values[name] ?? '');
}
