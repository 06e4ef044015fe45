// Where a task's intermediate and final objects live in the store. A workbook of several sheets
// stages each sheet apart: sheet 0 where a single-sheet export always has (so exports staged before
// sheets existed resume unchanged), sheet n under staging/<task>/sheets/<n>/.

const sheetDir = (taskId: string, sheet: number) => (sheet === 0 ? `staging/${taskId}` : `staging/${taskId}/sheets/${sheet}`);

export const keys = {
  staging: (taskId: string) => `staging/${taskId}`,
  meta: (taskId: string, sheet = 0) => `${sheetDir(taskId, sheet)}/meta.json`,
  pages: (taskId: string, sheet = 0) => `${sheetDir(taskId, sheet)}/pages`,
  /** Pages [from, to) of the source, as fetched (pieces.ts). */
  piece: (taskId: string, from: number, to: number, ext: string, sheet = 0) =>
    `${sheetDir(taskId, sheet)}/pages/${String(from).padStart(8, '0')}-${String(to).padStart(8, '0')}.${ext}`,
  output: (taskId: string, name: string) => `staging/${taskId}/out/${name}`,
  files: (taskId: string) => `files/${taskId}`,
  file: (taskId: string, name: string) => `files/${taskId}/${name}`,
};
