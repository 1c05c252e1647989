/**
 * The architecture, enforced (issue 13; docs/architecture.md "Dependency rules"; STYLE.md).
 * Reads every import of src/ and web/ (tests beside the code excepted; their helpers live in test/helpers/) with the TypeScript parser
 * and fails on the layering rules and the whiteboard's "never" edges. A deliberate exception is
 * listed once, in EXCEPTIONS below, with its reason; an exception that no longer matches an edge
 * fails too, so the list cannot rot.
 */
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(import.meta.dir, "..");

/** One import: `from` and `to` are repository-relative paths, or `pkg:<name>` for a package. */
type Edge = { from: string; to: string; typeOnly: boolean };

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(rel);
    // Tests beside the code (`*.test.ts`) may reach anything; what they share lives in test/helpers/.
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

/** Static imports, re-exports and `import("…")` calls; `import type` (or all-`type` names) is type-only. */
function importsOf(file: string): Edge[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    const to = spec.startsWith(".") ? path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), spec)) : `pkg:${spec}`;
    edges.push({ from: file, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : null;
      const typeOnly = !!c && (c.isTypeOnly || (!c.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

const FILES = [...sourceFiles("src"), ...sourceFiles("web")];
const EDGES = FILES.flatMap(importsOf);

/** Route files: the only feature files that know Elysia and the request. */
const ROUTE_FILE = /^src\/modules\/[a-z-]+\/([a-z-]+-)?routes\.ts$|^src\/modules\/intake\/live\.ts$/;
/** What every layer may use: time, errors, logging, the neutral shared code and Node's own modules. */
const BASICS = /^(src\/(clock|errors|logger)\.ts|src\/shared\/|pkg:node:)/;

/**
 * A rule: edges from files matching `from` must reach something `allowed` (when given) and
 * nothing `forbidden`. `types: false` lets type-only imports through (they vanish at run time).
 */
type Rule = { name: string; from: RegExp; unless?: RegExp; allowed?: RegExp; forbidden?: RegExp; types?: boolean; typesFrom?: RegExp; basics?: boolean };

const RULES: Rule[] = [
  {
    name: "the product imports no test code (test helpers live in test/helpers/, not in src/)",
    from: /^(src|web)\//,
    forbidden: /^test\//,
  },
  {
    name: "the data layer (src/db) knows no feature or request",
    from: /^src\/db\//,
    allowed: /^(src\/db\/|src\/config\.ts|pkg:(?!elysia))/,
  },
  {
    name: "AI (src/ai) knows no request, database or feature",
    from: /^src\/ai\//,
    allowed: /^(src\/ai\/|src\/runtime\/|src\/model-store\/|src\/config\.ts|corpus\/|pkg:(?!elysia$|kysely$|pg$|bun:sqlite$))/,
  },
  {
    name: "the outbox carries the payloads it is given: it knows no feature",
    from: /^src\/outbox\//,
    forbidden: /^(src\/modules\/|src\/http\/|src\/auth\/|pkg:elysia$)/,
  },
  {
    name: "mail (src/mail) sends what it is given: it knows no feature, request or database",
    from: /^src\/mail\//,
    forbidden: /^(src\/modules\/|src\/http\/|src\/auth\/|src\/db\/|src\/jobs\/|pkg:(elysia|kysely|pg|bun:sqlite)$)/,
  },
  {
    name: "jobs and the durable queue know no request and no feature",
    from: /^src\/(jobs|queue)\//,
    forbidden: /^(src\/modules\/|src\/http\/|src\/auth\/|pkg:elysia$)/,
  },
  {
    name: "the pages (web/) talk HTTP only: they import web/ and src/shared/ alone (and the API's body types)",
    from: /^web\//,
    allowed: /^(web\/|src\/shared\/|pkg:)/,
    // The types of the API's bodies come from the zod output schemas (one shape); types vanish from the bundle.
    typesFrom: /^src\/modules\/[a-z-]+\/model\.ts$/,
  },
  {
    name: "src/shared is neutral: it imports nothing of the server or the pages",
    from: /^src\/shared\//,
    allowed: /^(src\/shared\/|pkg:(?!node:|elysia$|kysely$|pg$|bun:))/,
    basics: false,
  },
  {
    name: "the request primitives (src/http) import no feature and not the API surface above them",
    from: /^src\/http\//,
    forbidden: /^(src\/modules\/|src\/api\/)/,
  },
  {
    name: "authentication (src/auth) imports no feature: it reads identity through its own repository",
    from: /^src\/auth\//,
    forbidden: /^(src\/modules\/|src\/api\/)/,
  },
  {
    name: "the API surface (src/api) sits above the features: no feature imports it",
    from: /^src\/modules\//,
    forbidden: /^src\/api\//,
  },
  {
    name: "the server imports no page code (web/): JSON data only",
    from: /^src\//,
    forbidden: /^web\/(?!.*\.json$)/,
  },
  {
    name: "routes import no repository, no Kysely and no database module",
    from: ROUTE_FILE,
    forbidden: /(\/repository\.ts$|^src\/db\/|^pkg:(kysely|pg|bun:sqlite)$)/,
  },
  {
    name: "only the app, the auth plugin and route files know Elysia",
    from: /^src\//,
    unless: new RegExp(`^src/(app|http/auth-plugin)\\.ts$|${ROUTE_FILE.source}`),
    forbidden: /^pkg:elysia$/,
  },
  {
    name: "only src/app.ts mounts route files",
    from: /^(src|web)\//,
    unless: /^src\/app\.ts$/,
    forbidden: ROUTE_FILE,
  },
  {
    name: "repositories hold Kysely only: no service, route, HTTP or auth code",
    from: /\/repository\.ts$/,
    allowed: /^(src\/db\/|src\/queue\/|src\/(modules\/[a-z-]+|auth)\/repository\.ts|src\/outbox\/repository\.ts|pkg:kysely$)/,
  },
  {
    name: "zod models (model.ts) know no database, service or route",
    from: /(^|\/)(model|question-model)\.ts$/,
    forbidden: /(\/repository\.ts$|\/service\.ts$|routes\.ts$|^src\/db\/|^src\/http\/|^pkg:(kysely|elysia)$)/,
  },
];

/** Deliberate exceptions, in one place, each with its reason. `to` may be a prefix of the target. */
const EXCEPTIONS: { from: string; to: string; reason: string }[] = [];

function isExcepted(e: Edge): boolean {
  return EXCEPTIONS.some((x) => e.from.startsWith(x.from) && e.to.startsWith(x.to));
}

function breaks(rule: Rule, e: Edge): boolean {
  if (!rule.from.test(e.from) || rule.unless?.test(e.from)) return false;
  if (e.typeOnly && (rule.types === false || rule.typesFrom?.test(e.to))) return false;
  if (rule.basics !== false && BASICS.test(e.to)) return false;
  if (rule.allowed && !rule.allowed.test(e.to)) return true;
  return !!rule.forbidden && rule.forbidden.test(e.to);
}

/** Strongly connected components of the run-time import graph with more than one file. */
function runTimeCycles(edges: Edge[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const e of edges) if (!e.typeOnly && !e.to.startsWith("pkg:")) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return cycles;
}

describe("architecture", () => {
  test("the import reader sees the code base (a broken reader would pass every rule)", () => {
    expect(FILES.length).toBeGreaterThan(100);
    expect(EDGES).toContainEqual({ from: "src/app.ts", to: "pkg:elysia", typeOnly: false });
    expect(EDGES.some((e) => e.from === "src/http/context.ts" && e.to === "src/auth/authenticate.ts" && e.typeOnly)).toBe(true);
  });

  for (const rule of RULES) {
    test(rule.name, () => {
      const offenders = EDGES.filter((e) => breaks(rule, e) && !isExcepted(e)).map((e) => `${e.from} → ${e.to}${e.typeOnly ? " (type)" : ""}`);
      expect(offenders).toEqual([]);
    });
  }

  test("route files open no transaction and build no query (that is the services' and repositories' work)", () => {
    const offenders = FILES.filter(
      (f) => ROUTE_FILE.test(f) && /\.(transaction|selectFrom|insertInto|updateTable|deleteFrom)\(/.test(fs.readFileSync(path.join(ROOT, f), "utf8")),
    );
    expect(offenders).toEqual([]);
  });

  test("no two features import each other: a feature's imports run one way (types included)", () => {
    const feature = (f: string) => /^src\/modules\/([a-z-]+)\//.exec(f)?.[1];
    const reaches = new Map<string, Set<string>>();
    for (const e of EDGES) {
      const [a, b] = [feature(e.from), feature(e.to)];
      if (a && b && a !== b) reaches.set(a, (reaches.get(a) ?? new Set()).add(b));
    }
    const pairs = [...reaches].flatMap(([a, bs]) => [...bs].filter((b) => a < b && reaches.get(b)?.has(a)).map((b) => `${a} ↔ ${b}`));
    expect(pairs).toEqual([]);
  });

  test("no engine check outside src/db: engine differences are named capabilities of db/engine.ts", () => {
    // `isPostgres`, the dialect, the adapters, or a branch on whether the configuration names a database URL.
    const check = /\b(isPostgres\w*|dialectOf|(Postgres|Sqlite)Adapter)\b|\.databaseUrl\s*(\?(?!\?)|\)|&&|\|\|)/;
    const offenders = FILES.filter((f) => !f.startsWith("src/db/") && check.test(fs.readFileSync(path.join(ROOT, f), "utf8")));
    const dialectImports = EDGES.filter((e) => !e.from.startsWith("src/db/") && e.to === "src/db/dialect.ts").map((e) => e.from);
    expect([...offenders, ...dialectImports]).toEqual([]);
  });

  test("no run-time import cycles", () => {
    expect(runTimeCycles(EDGES)).toEqual([]);
  });

  test("every listed exception still matches an import (no stale exceptions)", () => {
    const stale = EXCEPTIONS.filter((x) => !EDGES.some((e) => e.from.startsWith(x.from) && e.to.startsWith(x.to)));
    expect(stale).toEqual([]);
  });
});
