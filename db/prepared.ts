// drizzle hands postgres.js every query unprepared (`prepare: name !== undefined`), and postgres.js
// sends an unprepared query with parameters in two round trips: Parse + Describe + Flush, then, once
// the parameter types are back, Bind + Execute + Sync. A prepared one is one round trip from its
// second use on a connection (Bind + Execute + Sync). On the embedded start's wire (db/wire.ts) the
// first round trip also held PGlite for the API process until the worker process, busy and at a
// lower priority, sent the rest: measured under the load bench, holds lasted ~10x their execution
// (docs/adr/0057-api-first-under-export-load.md). So queries are prepared, up to a bound of distinct texts.
import type postgres from 'postgres';

/**
 * Distinct statement texts a process prepares; later new texts run unprepared. Each connection keeps
 * a prepared statement per text (and per parameter-type list) it has run, in postgres.js and in the
 * server's session: this bounds both. The service's own queries are a few hundred texts at most; a
 * text built from a variable-length list (`in ($1, $2, …)`) is one more text per length.
 */
export const MAX_PREPARED_TEXTS = 500;

/** `sql` whose unsafe() (drizzle's only way in) prepares, inside transactions and savepoints too. */
export function preparing(sql: postgres.Sql, max = MAX_PREPARED_TEXTS): postgres.Sql {
  const texts = new Set<string>();
  const prepare = (text: string): boolean => {
    if (texts.has(text)) return true;
    if (texts.size >= max) return false;
    texts.add(text);
    return true;
  };
  return wrap(sql, prepare);
}

type Options = Parameters<postgres.Sql['unsafe']>[2];
type Callback = (sql: postgres.TransactionSql) => unknown;

function wrap<T extends postgres.Sql | postgres.TransactionSql>(sql: T, prepare: (text: string) => boolean): T {
  return new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop === 'unsafe') {
        return (text: string, params?: postgres.ParameterOrJSON<never>[], options?: Options) =>
          // drizzle says `prepare: false` for every query without a name: its false is not a choice.
          target.unsafe(text, params, { ...options, prepare: options?.prepare === true || prepare(text) });
      }
      if (prop === 'begin' || prop === 'savepoint') {
        const open = Reflect.get(target, prop, receiver) as (...args: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => {
          const fn = args.pop() as Callback;
          return open.call(target, ...args, (tx: postgres.TransactionSql) => fn(wrap(tx, prepare)));
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}
