/**
 * @module db/availability
 * Tells "the database cannot be reached" apart from every other error (DESIGN §11): a node whose
 * PostgreSQL is down, restarting or out of connections answers `503 DATABASE_UNAVAILABLE`
 * (src/http/problem.ts) instead of `500 INTERNAL`, and `/healthz` says so. `pg`'s pool connects
 * again on the next query, so the node recovers by itself once the database is back.
 */

/** SQLSTATE classes and codes that mean the server is not there (08 connection, 57P0x shutdown, 53300 too many connections). */
const UNAVAILABLE_SQLSTATE = /^(08...|57P01|57P02|57P03|53300)$/;
/** Socket-level errno codes of a refused, reset or unreachable connection. */
const UNAVAILABLE_ERRNO = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ConnectionRefused",
  "ConnectionClosed",
]);
/** Messages `pg` gives lost or never-made connections (it sets no code on these). */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|the database system is (starting up|shutting down)|terminating connection due to administrator command/i;

/** True when `err` (or its `cause`) says the database server cannot be reached right now. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))) return true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGE.test(message)) return true;
    if (e instanceof AggregateError && e.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}
