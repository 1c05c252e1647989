/**
 * @module db/dialect
 * Which engine a Kysely instance talks to: the embedded SQLite file (the default) or PostgreSQL
 * (DESIGN §11). Code outside `src/db/` that must differ by engine asks here instead of looking
 * at adapters or URLs itself; most code never needs to.
 */
import { PostgresAdapter, type Kysely, type Transaction } from "kysely";

/** The two engines Earshot runs on. */
export type Dialect = "sqlite" | "postgres";

/** The engine behind `db` (a Kysely instance or a transaction). */
export function dialectOf(db: Kysely<any> | Transaction<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}

/** True when `db` talks to PostgreSQL. */
export function isPostgres(db: Kysely<any> | Transaction<any>): boolean {
  return dialectOf(db) === "postgres";
}

/** True when a database URL (`EARSHOT_DATABASE_URL`) names PostgreSQL (`postgres://` or `postgresql://`). */
export function isPostgresUrl(url: string | undefined | null): url is string {
  return !!url && /^postgres(ql)?:\/\//i.test(url);
}
