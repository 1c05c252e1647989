/**
 * One declaration per endpoint (issue 23): every route of the route files takes its path from a
 * declaration of the catalogue (`modules/<feature>/operations.ts`), its `auth` options (scope,
 * re-check, audit) from the same declaration, and parses its body with the declared schema; every
 * audited declaration is a route the server answers, recording an action the audit log knows.
 * The route files are read with the TypeScript parser (as test/architecture.test.ts reads imports).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { createTestApi, type TestApi } from "../../test/helpers/api.ts";
import type { Operation } from "../http/operation.ts";
import { isAuditAction } from "../modules/audit/hook.ts";
import { apiOperations } from "./operations.ts";

const ROOT = path.resolve(import.meta.dir, "../..");
const MODULES = path.join(ROOT, "src/modules");

/** Every feature's keyed declarations (`export const xOps = { name: operation({…}) }`) by `xOps.name`. */
async function declarations(): Promise<Map<string, Operation>> {
  const byRef = new Map<string, Operation>();
  for (const feature of fs.readdirSync(MODULES)) {
    const file = path.join(MODULES, feature, "operations.ts");
    if (!fs.existsSync(file)) continue;
    for (const [name, value] of Object.entries(await import(file)))
      if (name.endsWith("Ops")) for (const [key, op] of Object.entries(value as Record<string, Operation>)) byRef.set(`${name}.${key}`, op);
  }
  return byRef;
}

type RouteCall = { file: string; method: string; ref: string | null; pathText: string; handler: string; options: string | null };

/** The `.get/.post/.put/.patch/.delete/.ws(path, handler, options?)` calls of every route file. */
function routeCalls(): RouteCall[] {
  const files = fs
    .readdirSync(MODULES)
    .flatMap((f) => fs.readdirSync(path.join(MODULES, f)).map((n) => `src/modules/${f}/${n}`))
    .filter((f) => /\/([a-z-]+-)?routes\.ts$|\/intake\/live\.ts$/.test(f));
  const calls: RouteCall[] = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.arguments.length >= 2) {
        const method = node.expression.name.text;
        if (["get", "post", "put", "patch", "delete"].includes(method)) {
          const [p, handler, options] = node.arguments;
          const m = /^([A-Za-z]+Ops\.[A-Za-z]+)\.path$/.exec(p!.getText(sf));
          calls.push({ file, method, ref: m?.[1] ?? null, pathText: p!.getText(sf), handler: handler!.getText(sf), options: options?.getText(sf) ?? null });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return calls;
}

let api: TestApi;
let byRef: Map<string, Operation>;
let calls: RouteCall[];
beforeAll(async () => {
  api = await createTestApi();
  byRef = await declarations();
  calls = routeCalls();
});
afterAll(() => api.close());

test("the reader sees the declarations and the routes (a broken reader would pass every test below)", () => {
  expect(byRef.size).toBe(apiOperations.length);
  expect(new Set(byRef.values())).toEqual(new Set(apiOperations));
  expect(calls.filter((c) => c.ref).length).toBeGreaterThan(70);
});

test("every API route takes its path from a declaration, and every declaration is exactly one route with its method", () => {
  const api = calls.filter((c) => c.ref || /\/api\/v1\//.test(c.pathText));
  expect(api.filter((c) => !c.ref).map((c) => `${c.file}: ${c.method}(${c.pathText})`)).toEqual([]);
  const uses = new Map<string, string[]>();
  for (const c of api) uses.set(c.ref!, [...(uses.get(c.ref!) ?? []), c.method]);
  const wrong = [...byRef]
    .filter(([ref, op]) => (uses.get(ref) ?? []).join() !== op.method)
    .map(([ref, op]) => `${ref}: ${op.method} declared, routed ${uses.get(ref) ?? "nowhere"}`);
  expect(wrong).toEqual([]);
});

test("a keyed route's auth options are its declaration's (scope, re-check, audit); none is written by hand", () => {
  const offenders: string[] = [];
  for (const c of calls) {
    // REST routes only: the MCP endpoint (`/api/mcp/`, outside the REST document, whose tools check the
    // scopes of the REST operations they mirror) declares its one route's auth beside it (mcp/routes.ts).
    const rest = c.ref !== null || /\/api\/v1\//.test(c.pathText);
    if (rest && c.options && /\bauth:/.test(c.options)) offenders.push(`${c.file}: ${c.method}(${c.pathText}) writes { auth } by hand`);
    const op = c.ref ? byRef.get(c.ref) : undefined;
    if (!op || op.scope === "public") continue;
    // A signed recording URL needs no key: those routes authenticate in the handler, with the declared scope.
    const ok = c.options === `routeOptions(${c.ref})` || (op.signedUrl && !c.options && c.handler.includes(`${c.ref}.scope`));
    if (!ok) offenders.push(`${c.ref}: options ${c.options ?? "(none)"}`);
  }
  expect(offenders).toEqual([]);
});

// The intake bodies are documentation: an answer's `value` is checked against its question's type
// and configuration (intake/answer-values.ts), which one schema cannot say.
const PARSED_ELSEWHERE = /^intakeOps\./;

test("every handler parses its body with the declared schema (parseBody of its own declaration)", () => {
  const offenders: string[] = [];
  for (const c of calls) {
    const op = c.ref ? byRef.get(c.ref) : undefined;
    if (/parseWith\([^,]+,\s*(requireJsonBody\(|body|raw)/.test(c.handler)) offenders.push(`${c.ref ?? c.pathText}: parseWith on the body`);
    if (!op?.body || PARSED_ELSEWHERE.test(c.ref!)) continue;
    if (!c.handler.includes(`parseBody(${c.ref},`) && !c.handler.includes(`body(${c.ref},`)) offenders.push(`${c.ref}: body not parsed with its declaration`);
    for (const other of c.handler.matchAll(/(?:parseBody|body)\(([A-Za-z]+Ops\.[A-Za-z]+),/g))
      if (other[1] !== c.ref) offenders.push(`${c.ref}: parses with ${other[1]}'s schema`);
  }
  expect(offenders).toEqual([]);
});

test("every audited declaration is a route the server answers, recording an action the audit log knows", () => {
  const served = new Set(api.app.routes.map((r) => `${r.method.toUpperCase()} ${r.path}`));
  const audited = apiOperations.filter((op) => op.audit);
  expect(audited.length).toBeGreaterThanOrEqual(19);
  expect(audited.filter((op) => !served.has(`${op.method.toUpperCase()} ${op.path}`)).map((op) => `${op.method} ${op.path}`)).toEqual([]);
  expect(audited.filter((op) => !isAuditAction(op.audit!.action)).map((op) => op.audit!.action)).toEqual([]);
  // Reads are never audited; public endpoints have no actor to record.
  expect(audited.filter((op) => op.method === "get" || op.scope === "public").map((op) => `${op.method} ${op.path}`)).toEqual([]);
});
