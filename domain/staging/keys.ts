// Where a task's intermediate and final objects live in the store.

export const keys = {
  staging: (taskId: string) => `staging/${taskId}`,
  meta: (taskId: string) => `staging/${taskId}/meta.json`,
  pages: (taskId: string) => `staging/${taskId}/pages`,
  /** Pages [from, to) of the source, as fetched (pieces.ts). */
  piece: (taskId: string, from: number, to: number, ext: string) => `staging/${taskId}/pages/${String(from).padStart(8, '0')}-${String(to).padStart(8, '0')}.${ext}`,
  output: (taskId: string, name: string) => `staging/${taskId}/out/${name}`,
  files: (taskId: string) => `files/${taskId}`,
  file: (taskId: string, name: string) => `files/${taskId}/${name}`,
};
