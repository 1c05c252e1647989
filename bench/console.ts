/**
 * @module bench/console
 * Operator console figures for docs/performance.md (issue 10: first load under 100 KB
 * compressed; each page renders in under 200 ms on loopback with 1,000 keys, webhooks and audit
 * rows).
 *
 *   bun bench/console.ts [--bin dist/earshot] [--rows 1000] [--runs 7]
 *
 * 1. First load: the shell HTML, `console.js` and `console.css` as served, each gzip- and
 *    brotli-compressed here (the server sends them uncompressed; a reverse proxy compresses).
 * 2. A fresh server (from source, or `--bin`) with ROWS API keys, ROWS webhooks and so ≥ ROWS
 *    audit rows, seeded through the public API with several keys (each key has its own rate
 *    limit). The owner signs in through the setup URL in Chromium.
 * 3. The API calls behind those pages, timed with the session cookie from the driver. Then, for the
 *    API keys, Webhooks and Settings pages: "cold" = full page load (`goto`, measured from the
 *    driver, so it includes DevTools Protocol round trips) until the page's table shows its 20
 *    rows; "warm" = a click in the navigation until the same rows are in the DOM and the next
 *    frame is drawn, measured inside the page. Median and worst of RUNS runs, in ms.
 */
import { gzipSync } from "bun";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliCompressSync } from "node:zlib";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { launchBrowser } from "../test/helpers/browser.ts";
import { startHttpsReceiver } from "../test/helpers/https-receiver.ts";
import { startServer } from "../test/helpers/process.ts";

const { values: flags } = parseArgs({
  options: {
    bin: { type: "string" },
    rows: { type: "string", default: "1000" },
    runs: { type: "string", default: "7" },
  },
});
const ROWS = Number(flags.rows);
const RUNS = Number(flags.runs);
const SEED_KEYS = 8;

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dataDir = await mkdtemp(path.join(tmpdir(), "earshot-bench-console-"));
const receiver = await startHttpsReceiver();
const server = await startServer({
  dataDir,
  bin: flags.bin ? [path.resolve(flags.bin)] : undefined,
  env: { EARSHOT_WEBHOOK_ALLOW_HOSTS: "127.0.0.1,localhost", EARSHOT_WEBHOOK_CA_FILE: receiver.certs.caFile },
});
try {
  await Bun.sleep(300);
  const out = server.output();
  const setupUrl = /(https?:\/\/\S+\/console\/setup\/\?token=[^\s'"]+)/.exec(out)?.[1];
  const bootstrapKey = /sk_live_[A-Za-z0-9]{40}/.exec(out)?.[0];
  if (!setupUrl || !bootstrapKey) throw new Error(`no setup URL or key in the server's output:\n${out}`);
  const origin = new URL(setupUrl).origin;

  // 1. First load.
  const shell = await (await fetch(`${origin}/console/`)).arrayBuffer();
  const html = new TextDecoder().decode(shell);
  const files: [string, Uint8Array][] = [["shell", new Uint8Array(shell)]];
  for (const m of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
    files.push([m[1]!.split("?")[0]!, new Uint8Array(await (await fetch(origin + m[1])).arrayBuffer())]);
  }
  let raw = 0,
    gz = 0,
    br = 0;
  console.log("first load:");
  for (const [name, body] of files) {
    const g = gzipSync(body as Uint8Array<ArrayBuffer>).byteLength,
      b = brotliCompressSync(body).byteLength;
    raw += body.byteLength;
    gz += g;
    br += b;
    console.log(`  ${name.padEnd(22)} ${kb(body.byteLength).padStart(9)} raw  ${kb(g).padStart(8)} gzip  ${kb(b).padStart(8)} brotli`);
  }
  console.log(`  ${"total".padEnd(22)} ${kb(raw).padStart(9)} raw  ${kb(gz).padStart(8)} gzip  ${kb(br).padStart(8)} brotli`);

  // 2. Seed through the API with several keys.
  const ws = (await (await fetch(`${origin}/api/v1/workspace/`, { headers: { authorization: `Bearer ${bootstrapKey}` } })).json()) as { uuid: string };
  const call = async (key: string, method: string, p: string, body: unknown): Promise<unknown> => {
    for (;;) {
      const res = await fetch(`${origin}/api/v1/${p}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.status === 429) {
        await Bun.sleep(1000 * Number(res.headers.get("retry-after") ?? "1"));
        continue;
      }
      if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return res.json();
    }
  };
  const keys = [bootstrapKey];
  for (let i = 0; i < SEED_KEYS - 1; i++) keys.push(((await call(bootstrapKey, "POST", "tokens/", { name: `seed ${i}` })) as { key: string }).key);
  const started = performance.now();
  const jobs: (() => Promise<unknown>)[] = [];
  for (let i = keys.length; i < ROWS; i++) jobs.push(() => call(keys[i % keys.length]!, "POST", "tokens/", { name: `key ${i}`, scopes: ["links:read"] }));
  for (let i = 0; i < ROWS; i++)
    jobs.push(() => call(keys[i % keys.length]!, "POST", `workspaces/${ws.uuid}/webhooks/`, { url: `${receiver.url}?n=${i}`, events: ["response.submitted"] }));
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < jobs.length) await jobs[next++]!();
    }),
  );
  console.log(`seeded ${ROWS} keys and ${ROWS} webhooks in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // 3. Render times in Chromium, signed in as the owner.
  const browser = await launchBrowser({ microphone: false });
  try {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(setupUrl);
    await page.getByLabel("Name").fill("Bench Owner");
    await page.getByLabel("Email").fill("bench@example.com");
    await page.getByLabel("Password").fill("bench password 123");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("navigation", { name: "Console" }).waitFor();
    // The API calls behind the pages, with the session cookie, from here (no browser).
    const cookie = (await browser.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const calls = [
      "auth/session/",
      "workspace/",
      "tokens/?page=1&page_size=20",
      `workspaces/${ws.uuid}/webhooks/?page=1&page_size=20`,
      "members/?page=1&page_size=20",
      "invites/?page=1&page_size=100",
      "audit/?page=1&page_size=25",
      "/healthz",
    ];
    console.log(`API with the session cookie (ms, median / worst of ${RUNS * 3}):`);
    for (const c of calls) {
      const times: number[] = [];
      for (let i = 0; i < RUNS * 3; i++) {
        const t = performance.now();
        const res = await fetch(c.startsWith("/") ? origin + c : `${origin}/api/v1/${c}`, { headers: { cookie } });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`${c}: ${res.status}`);
        times.push(performance.now() - t);
      }
      console.log(
        `  ${c.split("?")[0]!.replace(ws.uuid, "{ws}").padEnd(30)} ${median(times).toFixed(1).padStart(6)} / ${Math.max(...times)
          .toFixed(1)
          .padStart(6)}`,
      );
    }
    const pages: [string, string, string][] = [
      ["API keys", "/console/keys/", "Active API keys"],
      ["Webhooks", "/console/webhooks/", "Webhooks"],
      ["Settings", "/console/settings/", "Audit log"],
    ];
    const rowsShown = (p: Page, table: string) =>
      p.waitForFunction(
        (name) => {
          const t = [...document.querySelectorAll("table")].find((el) => el.querySelector("caption")?.textContent === name);
          return (t?.querySelectorAll("tbody tr").length ?? 0) >= 20;
        },
        table,
        { polling: "raf" },
      );
    console.log(`render with ${ROWS} rows (ms, median / worst of ${RUNS}):`);
    for (const [link, url, table] of pages) {
      const cold: number[] = [],
        warm: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        await page.goto(origin + url);
        await rowsShown(page, table);
        cold.push(performance.now() - t);
        await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Links", exact: true }).click();
        await page.getByRole("heading", { level: 1, name: "Links" }).waitFor();
        // Timed inside the page: the click, until the rows are in the DOM and the next frame is drawn.
        warm.push(
          await page.evaluate(
            ({ link, table }) =>
              new Promise<number>((resolve) => {
                const ready = () => {
                  const t = [...document.querySelectorAll("table")].find((el) => el.querySelector("caption")?.textContent === table);
                  return (t?.querySelectorAll("tbody tr").length ?? 0) >= 20;
                };
                const a = [...document.querySelectorAll<HTMLAnchorElement>('nav[aria-label="Console"] a')].find((x) => x.textContent === link)!;
                const start = performance.now();
                const observer = new MutationObserver(() => {
                  if (!ready()) return;
                  observer.disconnect();
                  requestAnimationFrame(() => resolve(performance.now() - start));
                });
                observer.observe(document.body, { childList: true, subtree: true });
                a.click();
              }),
            { link, table },
          ),
        );
      }
      console.log(
        `  ${link.padEnd(9)} cold ${median(cold).toFixed(0).padStart(4)} / ${Math.max(...cold)
          .toFixed(0)
          .padStart(4)}   warm ${median(warm).toFixed(0).padStart(4)} / ${Math.max(...warm)
          .toFixed(0)
          .padStart(4)}`,
      );
    }
  } finally {
    await browser.close();
  }
} finally {
  await server.stop();
  await receiver.close();
  await rm(dataDir, { recursive: true, force: true });
}
