// The Dc* search attributes must exist on the Temporal namespace before a run is started with them
// (an unknown attribute fails the start, and a run upserting one fails its workflow tasks). The
// embedded dev server registers them at start (temporal-server.ts); on a cluster, every process
// checks them at start-up and adds the missing ones, or says which command an operator must run.
import type { Connection } from '@temporalio/client';
// Not re-exported by the package's index; the proto enum value of 'KEYWORD' / 'INT'.
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { SEARCH_ATTRIBUTES } from '../model/search-attributes.js';

const TYPES = { Keyword: encodeSearchAttributeIndexedValueType('KEYWORD')!, Int: encodeSearchAttributeIndexedValueType('INT')! };

/** `temporal server start-dev` arguments that register the attributes. */
export const devServerSearchAttributeArgs = (): string[] => SEARCH_ATTRIBUTES.flatMap((a) => ['--search-attribute', `${a.name}=${a.type}`]);

/** The commands docs/operations.md gives for a cluster. */
export const clusterCommands = (namespace: string): string[] =>
  SEARCH_ATTRIBUTES.map((a) => `temporal operator search-attribute create --namespace ${namespace} --name ${a.name} --type ${a.type}`);

/** Adds the attributes the namespace lacks; throws, naming the commands, when that is refused. */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<{ added: string[] }> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((a) => customAttributes[a.name] === undefined);
  const wrong = SEARCH_ATTRIBUTES.filter((a) => customAttributes[a.name] !== undefined && customAttributes[a.name] !== TYPES[a.type]);
  if (wrong.length) {
    throw new Error(`search attribute ${wrong.map((a) => a.name).join(', ')} exists on namespace ${namespace} with another type than ${wrong.map((a) => a.type).join(', ')}`);
  }
  if (!missing.length) return { added: [] };
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((a) => [a.name, TYPES[a.type]])) });
  } catch (err) {
    const commands = clusterCommands(namespace).filter((_, i) => missing.includes(SEARCH_ATTRIBUTES[i]!));
    throw new Error(`the search attributes ${missing.map((a) => a.name).join(', ')} are missing and could not be added (${(err as Error).message}); run:\n  ${commands.join('\n  ')}`, { cause: err });
  }
  return { added: missing.map((a) => a.name) };
}
