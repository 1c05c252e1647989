/**
 * The allow-list of skipped tests `npm test` applies (scripts/skip-check.ts), on JUnit reports as
 * `bun test --reporter=junit` writes them.
 */
import { expect, test } from "bun:test";
import { parseJUnit, skipProblems } from "./skip-check.ts";

const report = (cases: string) => `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bun test" tests="4"><testsuite name="a.test.ts" file="a.test.ts">${cases}</testsuite></testsuites>`;
const ran = (name: string, line = 1) => `<testcase name="${name}" classname="" time="0.1" file="a.test.ts" line="${line}" assertions="1" />`;
const skipped = (name: string, line = 1) =>
  `<testcase name="${name}" classname="" time="0" file="a.test.ts" line="${line}" assertions="0">\n      <skipped />\n    </testcase>`;

test("reads every test case, its place and whether it skipped, with XML entities decoded", () => {
  expect(parseJUnit(report(ran("a &quot;b&quot; &amp; c", 3) + skipped("d &lt;e&gt;", 9)))).toEqual([
    { name: 'a "b" & c', file: "a.test.ts", line: "3", skipped: false, failure: null },
    { name: "d <e>", file: "a.test.ts", line: "9", skipped: true, failure: null },
  ]);
});

test("a failed test case carries its failure's text, as bun writes it", () => {
  const failed = `<testcase name="fails" classname="" time="0.1" file="a.test.ts" line="2" assertions="1">
      <failure type="AssertionError" message="expect(received).toBe(expected)&#10;&#10;Expected: 2&#10;Received: 1&#10;">AssertionError: expect(received).toBe(expected)&#10;&#10;Expected: 2&#10;Received: 1&#10;&#10;      at a.test.ts:2:37&#10;</failure>
    </testcase>`;
  const [c] = parseJUnit(report(failed));
  expect(c?.failure).toBe("AssertionError: expect(received).toBe(expected)\n\nExpected: 2\nReceived: 1\n\n      at a.test.ts:2:37");
  const bare = parseJUnit(report(`<testcase name="t" file="a.test.ts" line="4"><failure type="Error" message="timed out" /></testcase>`));
  expect(bare[0]?.failure).toBe("timed out");
});

test("the engine split and the real-weights test may skip; nothing else may", () => {
  const cases = parseJUnit(
    report(
      skipped("blob store (PostgreSQL only: the blob store in the database)") +
        skipped("real Whisper weights (skipped: set EARSHOT_TEST_REAL_MODELS_DIR to a models directory): words") +
        ran("plain test") +
        skipped("the sign-in page says plainly that HTTPS is required", 7),
    ),
  );
  expect(skipProblems("sqlite", cases)).toEqual([
    "a.test.ts:7 the sign-in page says plainly that HTTPS is required — skipped on the sqlite run, for no reason on the allow-list",
  ]);
});

test("an engine-only test skipped on its own engine, or run on the other, is refused", () => {
  const cases = parseJUnit(report(skipped("WAL file (SQLite only: the WAL file)", 1) + ran("blobs (PostgreSQL only: rows)", 2)));
  expect(skipProblems("sqlite", cases)).toEqual([
    "a.test.ts:1 WAL file (SQLite only: the WAL file) — skipped on the sqlite run, for no reason on the allow-list",
    "a.test.ts:2 blobs (PostgreSQL only: rows) — named PostgreSQL only but ran on the sqlite run",
  ]);
  expect(skipProblems("postgres", parseJUnit(report(skipped("WAL file (SQLite only: the WAL file)"))))).toEqual([]);
});
