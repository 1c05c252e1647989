/**
 * @module db/prepared
 * Kysely queries built and compiled once, then run with new parameters — for the few reads on
 * every request (authentication, the intake's link lookup), where building and compiling the
 * query cost more than SQLite running it (bench/api.ts: ~25 µs of ~40 µs per lookup). The query
 * stays written with Kysely in its repository; only the compilation is cached.
 */
import { CompiledQuery, type Compilable } from "kysely";
import { directSqlite } from "./direct.ts";
import type { Executor } from "./schema.ts";

/**
 * The SQL text of every compiled prepared query and its statement name: on PostgreSQL these run
 * as named statements (db/postgres.ts), parsed and planned once per connection instead of at every
 * execution. Filled at each query's first compilation; the set of texts is fixed by the code.
 */
export const statementNames = new Map<string, string>();

/**
 * Wraps a query builder. `build` receives a placeholder for each parameter, in order; every
 * placeholder must end up as exactly one bound parameter of the compiled query, in the same
 * order (checked at the first compilation), so the compiled SQL can be reused with real values.
 * The compilation is kept per SQL dialect (the database's adapter class).
 * @param arity the number of parameters
 * @returns a function running the query on `db` with `params`, resolving to its rows
 * @throws Error at the first run when the placeholders do not map one to one onto the bound parameters
 */
export function prepared<Row, P extends unknown[]>(arity: P["length"], build: (db: Executor, ...params: P) => Compilable<Row>) {
  const byDialect = new Map<unknown, string>();
  const placeholders = Array.from({ length: arity }, (_, i) => `\u0000earshot-param-${i}\u0000`) as unknown as P;
  return async (db: Executor, ...params: P): Promise<Row[]> => {
    const dialect = db.getExecutor().adapter.constructor;
    let text = byDialect.get(dialect);
    if (text === undefined) {
      const compiled = build(db, ...placeholders).compile();
      if (compiled.parameters.length !== arity || compiled.parameters.some((p, i) => p !== placeholders[i])) {
        throw new Error(`prepared query: its ${arity} parameters must each be bound once, in order: ${compiled.sql}`);
      }
      text = compiled.sql;
      byDialect.set(dialect, text);
      if (!statementNames.has(text)) statementNames.set(text, `earshot_${statementNames.size + 1}`);
    }
    // SQLite, the root outside any transaction or the open transaction itself: the cached
    // statement, run here on the connection (db/direct.ts).
    const direct = directSqlite(db);
    if (direct) {
      const statement = direct.query(text);
      if (statement.reader) return statement.all(params as never) as Row[];
      statement.run(params as never);
      return [];
    }
    const result = await db.executeQuery<Row>(CompiledQuery.raw(text, params));
    return result.rows;
  };
}
