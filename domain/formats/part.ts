/** One output file a writer finished on local disk, before it is stored. */
export interface WrittenPart {
  path: string;
  rows: number;
  bytes: number;
  sha256: string;
}
