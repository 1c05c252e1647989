/**
 * @module scripts/skip-check
 * What `npm test` (scripts/test.ts) accepts as a skipped test, read from `bun test`'s JUnit report
 * (`--reporter=junit --reporter-outfile=FILE`). A suite that skips for the wrong reason passes
 * unnoticed otherwise (issue 22): a test that needs a LAN address on a host without one, or the
 * binary's tests when the build did not happen. Allowed (docs/testing.md "Skipped tests"):
 *   - the engine split: "(PostgreSQL only: why)" skipped on the SQLite run, "(SQLite only: why)"
 *     skipped on the PostgreSQL run — the reason is part of the test's name;
 *   - the real-weights test, "(skipped: set EARSHOT_TEST_REAL_MODELS_DIR …)" (the weights are not
 *     in the repository).
 * Anything else skipped, and an engine-only test that ran on the other engine, is refused.
 */

export type Engine = "sqlite" | "postgres";

/** One `<testcase>` of a JUnit report; `failure` is its failure's text (message and stack), or null. */
export type TestCase = { name: string; file: string; line: string; skipped: boolean; failure: string | null };

/** Marks in a test's name: which engine it needs, and the real-weights test's skip reason. */
const ONLY: Record<Engine, string> = { sqlite: "(SQLite only: ", postgres: "(PostgreSQL only: " };
const REAL_WEIGHTS = "(skipped: set EARSHOT_TEST_REAL_MODELS_DIR";

const ENTITIES: Record<string, string> = { quot: '"', amp: "&", lt: "<", gt: ">", apos: "'" };
const decodeXml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) =>
    e[0] === "#" ? String.fromCodePoint(e[1] === "x" || e[1] === "X" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1))) : (ENTITIES[e] ?? m),
  );
const attribute = (attrs: string, name: string) => decodeXml(new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1] ?? "");

/** Every `<testcase>` of a JUnit XML report, with whether it was skipped and why it failed. */
export function parseJUnit(xml: string): TestCase[] {
  const cases: TestCase[] = [];
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attrs = m[1]!;
    const body = m[2] ?? "";
    const failure = /<failure\b([^>]*?)(?:\/>|>([\s\S]*?)<\/failure>)/.exec(body);
    cases.push({
      name: attribute(attrs, "name"),
      file: attribute(attrs, "file"),
      line: attribute(attrs, "line"),
      skipped: /<skipped\b/.test(body),
      failure: failure ? decodeXml(failure[2] ?? "").trim() || attribute(failure[1]!, "message").trim() || "failed" : null,
    });
  }
  return cases;
}

/**
 * The problems of one engine's run: tests skipped for a reason not on the allow-list, and tests
 * named for the other engine only that ran here.
 * @returns one line per problem ("file:line name — why"); empty when the run is acceptable
 */
export function skipProblems(engine: Engine, cases: TestCase[]): string[] {
  const other: Engine = engine === "sqlite" ? "postgres" : "sqlite";
  const problems: string[] = [];
  for (const c of cases) {
    const where = `${c.file}:${c.line} ${c.name}`;
    if (c.skipped && !c.name.includes(ONLY[other]) && !c.name.includes(REAL_WEIGHTS)) {
      problems.push(`${where} — skipped on the ${engine} run, for no reason on the allow-list`);
    } else if (!c.skipped && c.name.includes(ONLY[other])) {
      problems.push(`${where} — named ${ONLY[other].slice(1, -2)} but ran on the ${engine} run`);
    }
  }
  return problems;
}
