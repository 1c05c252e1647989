/**
 * Many nodes on one database (issue 15, DESIGN §11): three real `earshot serve` processes on one
 * fresh PostgreSQL database, public submissions with voice answers spread across them, a webhook to
 * a real HTTPS receiver, and one node killed with SIGKILL in the middle of the burst and started
 * again. Afterwards:
 * - every acknowledged submission is stored exactly once (one completed response, one voice answer);
 * - every `response.submitted` event reached the receiver at least once, every copy with the
 *   event's own stable `webhook-id`, and each response has exactly one such event;
 * - no job ran twice to completion: every transcription finished once (one transcript, exactly one
 *   analysis queued per answer — a second finished transcription would queue a second one), every
 *   job row is `done`, and no node logged a job finished after losing its lease;
 * - a per-key limit of 30/min lets exactly 30 of 90 requests through across the three nodes.
 *
 * Runs only with `EARSHOT_TEST_DATABASE_URL` (several processes cannot share one SQLite appliance).
 * `EARSHOT_BIN=dist/earshot` runs the compiled binary instead of `bun src/cli.ts`.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeSpeechWav } from "../helpers/audio.ts";
import { dropTestDatabase, onPostgres, openTestDatabase, testDatabaseEnv } from "../helpers/db.ts";
import { createTestCertificates, startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type TestCertificates } from "../helpers/https-receiver.ts";
import { REPO_DIR, runCli, startServer, type RunningServer } from "../helpers/process.ts";

const SUBMISSIONS = 300;
/** Respondents in flight at once (the client side). */
const CONCURRENCY = 12;
/** The node killed after this many acknowledged submissions. */
const KILL_AFTER = 100;
const bin = process.env.EARSHOT_BIN ? [path.resolve(REPO_DIR, process.env.EARSHOT_BIN)] : undefined;

const root = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-cluster-"));
const sharedDir = path.join(root, "shared");
let certs: TestCertificates | null = null;
let receiver: HttpsReceiver | null = null;
const nodes: (RunningServer | null)[] = [null, null, null];
const outputs: string[] = [];

afterAll(async () => {
  for (const n of nodes) if (n) outputs.push(n.output());
  await Promise.all(nodes.map((n) => n?.stop()));
  await receiver?.close();
  if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
  await dropTestDatabase(sharedDir).catch(() => undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

/** A fetch that a dead node fails with a network error instead of an answer. */
async function send(node: RunningServer, method: string, p: string, opts: { key?: string; body?: unknown; raw?: Uint8Array } = {}) {
  const headers: Record<string, string> = { "content-type": opts.raw ? "audio/wav" : "application/json" };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const res = await fetch(node.baseUrl + p, {
    method,
    headers,
    body: opts.raw ? (opts.raw as unknown as BodyInit) : opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as any) : null };
}

test.skipIf(!onPostgres)(
  "three nodes on one database: nothing lost or doubled when one is killed mid-burst; a per-key limit holds across nodes (PostgreSQL only: several processes cannot share one SQLite appliance)",
  async () => {
    fs.mkdirSync(sharedDir, { recursive: true });
    certs = await createTestCertificates();
    receiver = await startHttpsReceiver({ certs });
    const ws = JSON.parse((await runCli(["workspace", "create", "--name", "Cluster", "--plan", "enterprise", "--json"], { dataDir: sharedDir, bin })).stdout);
    const limited = JSON.parse((await runCli(["workspace", "create", "--name", "Limited", "--plan", "free", "--json"], { dataDir: sharedDir, bin })).stdout);
    const env = {
      ...(await testDatabaseEnv(sharedDir)),
      EARSHOT_WEBHOOK_ALLOW_HOSTS: "localhost,127.0.0.1",
      EARSHOT_WEBHOOK_CA_FILE: certs.caFile,
      // One client sends every session: the per-address session limit (DESIGN §9) would refuse most.
      EARSHOT_INTAKE_SESSIONS_PER_MINUTE: "0",
      EARSHOT_JOB_POLL_MS: "200",
      EARSHOT_OUTBOX_POLL_MS: "200",
    };
    const nodeDir = (i: number) => path.join(root, `node-${i}`);
    const start = (i: number) => startServer({ dataDir: nodeDir(i), env, bin });
    for (let i = 0; i < 3; i++) nodes[i] = await start(i);

    const link = (
      await send(nodes[0]!, "POST", "/api/v1/links/", {
        key: ws.api_key,
        body: { name: "Cluster voice", questions: [{ prompt: "What should we fix?", type: "voice" }] },
      })
    ).json;
    expect(link.uuid).toBeString();
    const hook = await send(nodes[1]!, "POST", `/api/v1/workspaces/${ws.workspace_uuid}/webhooks/`, {
      key: ws.api_key,
      body: { url: receiver.url, events: ["response.submitted"] },
    });
    expect(hook.status).toBe(201);
    const wav = new Uint8Array(fs.readFileSync(await makeSpeechWav("the checkout page", path.join(root, "answer.wav"), 0.1)));
    const base = `/api/v1/intake/${ws.workspace_slug}/${link.slug}/sessions/`;

    // Each step goes to the respondent's node; a dead node's network error sends it to the next.
    let next = 0;
    const onAnyNode = async (first: number, step: (n: RunningServer) => Promise<{ status: number; json: any }>) => {
      for (let attempt = 0; attempt < 12; attempt++) {
        const node = nodes[(first + attempt) % 3];
        if (!node) continue;
        try {
          return await step(node);
        } catch {
          await Bun.sleep(50); // connection refused or reset: that node is down
        }
      }
      throw new Error("no node answered");
    };
    const acknowledged = new Set<string>();
    let killed: Promise<void> | null = null;
    const respondent = async (i: number) => {
      const home = i % 3;
      const s = await onAnyNode(home, (n) => send(n, "POST", base, { body: {} }));
      if (s.status !== 201) throw new Error(`session start answered ${s.status}: ${JSON.stringify(s.json)}`);
      const sessionPath = `${base}${s.json.session_id}/`;
      const a = await onAnyNode(home, (n) => send(n, "POST", `${sessionPath}answers/${link.questions[0].uuid}/audio/`, { raw: wav }));
      if (a.status !== 200) throw new Error(`upload answered ${a.status}: ${JSON.stringify(a.json)}`);
      const r = await onAnyNode(home, (n) => send(n, "POST", `${sessionPath}submit/`, { body: {} }));
      // A submit retried after its node died may find it already committed: that one was stored too.
      if (r.status === 200 || (r.status === 409 && r.json.code === "ALREADY_SUBMITTED")) acknowledged.add(s.json.response_uuid);
      else throw new Error(`submit answered ${r.status}: ${JSON.stringify(r.json)}`);
      if (acknowledged.size === KILL_AFTER && !killed) {
        killed = (async () => {
          const victim = nodes[1]!;
          nodes[1] = null;
          victim.kill9();
          await victim.proc.exited;
          outputs.push(victim.output());
          nodes[1] = await start(1); // same role, same database, a new process
        })();
      }
    };
    const burstStart = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < SUBMISSIONS; i = next++) await respondent(i);
      }),
    );
    await killed;
    const burstS = (Date.now() - burstStart) / 1000;
    expect(killed).not.toBeNull();
    expect(acknowledged.size).toBe(SUBMISSIONS);

    // Every acknowledged submission's event arrives (leases of the killed node expire in 30 s).
    const submittedTo = (rs: ReceivedRequest[]) => {
      const by = new Map<string, Set<string>>();
      for (const r of rs) {
        const body = JSON.parse(r.body);
        if (body.type !== "response.submitted") continue;
        const ids = by.get(body.data.response.uuid) ?? new Set<string>();
        ids.add(r.headers["webhook-id"]!);
        by.set(body.data.response.uuid, ids);
      }
      return by;
    };
    // Wait while deliveries keep arriving (a shared, loaded machine transcribes slowly); fail when
    // nothing new arrived for longer than a lease (30 s) plus the retry schedule's first step.
    const missing = () => [...acknowledged].filter((uuid) => !submittedTo(receiver!.requests).has(uuid)).length;
    for (let last = missing(), since = Date.now(); last > 0; ) {
      await Bun.sleep(500);
      const now = missing();
      if (now < last) [last, since] = [now, Date.now()];
      else if (Date.now() - since > 60_000) {
        const probe = await openTestDatabase(sharedDir);
        const jobs = await probe
          .selectFrom("jobs")
          .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
          .groupBy("state")
          .execute();
        const deliveries = await probe
          .selectFrom("webhook_deliveries")
          .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
          .groupBy("state")
          .execute();
        await probe.destroy();
        throw new Error(`${now} events not delivered, no progress for 60 s; jobs ${JSON.stringify(jobs)}, deliveries ${JSON.stringify(deliveries)}`);
      }
    }

    // The run time is mostly the fixture transcriptions (~0.3 s of CPU each) on a shared machine.
    console.log(
      `cluster: ${SUBMISSIONS} submissions in ${burstS.toFixed(1)} s; every event delivered ${((Date.now() - burstStart) / 1000).toFixed(1)} s after the first`,
    );
    const db = await openTestDatabase(sharedDir);
    try {
      const responses = await db
        .selectFrom("responses")
        .select(["uuid", "status"])
        .where("link_uuid", "=", link.uuid)
        .where("status", "=", "completed")
        .execute();
      const completed = new Set(responses.map((r) => r.uuid));
      for (const uuid of acknowledged) expect(completed.has(uuid)).toBe(true);
      expect(completed.size).toBe(responses.length);
      expect(completed.size).toBe(acknowledged.size); // a submit lost with the killed node was retried: 409 ALREADY_SUBMITTED
      const answers = await db
        .selectFrom("answers")
        .select(["uuid", "response_uuid", "transcription_status", "transcription"])
        .where("response_uuid", "in", [...completed])
        .execute();
      expect(answers.length).toBe(completed.size); // one voice answer each, stored once
      for (const a of answers) expect([a.transcription_status, a.transcription]).toEqual(["completed", "This is a fixture transcript."]);

      // One response.submitted event per response; every copy delivered carries its id.
      const events = await db
        .selectFrom("outbox_events")
        .select(["uuid", "response_uuid"])
        .where("type", "=", "response.submitted")
        .where("response_uuid", "in", [...completed])
        .execute();
      expect(events.length).toBe(completed.size);
      const delivered = submittedTo(receiver.requests);
      for (const e of events) {
        if (!acknowledged.has(e.response_uuid!)) continue;
        expect([...(delivered.get(e.response_uuid!) ?? [])]).toEqual([e.uuid]);
      }

      // No job ran twice to completion.
      const jobs = await db.selectFrom("jobs").select(["kind", "state", "payload", "attempts"]).execute();
      const perAnswer = new Map<string, string[]>();
      for (const j of jobs) {
        const answer = (JSON.parse(j.payload) as { answer_uuid: string }).answer_uuid;
        perAnswer.set(answer, [...(perAnswer.get(answer) ?? []), `${j.kind}:${j.state}`]);
      }
      for (const a of answers) expect((perAnswer.get(a.uuid) ?? []).sort()).toEqual(["analyse:done", "transcribe:done"]);
      const logs = [...outputs, ...nodes.map((n) => n?.output() ?? "")].join("\n");
      expect(logs).not.toContain("job finished after losing its lease");
    } finally {
      await db.destroy();
    }

    // A key limited to 30 requests a minute gets exactly 30 through, whichever nodes answer.
    const tries = await Promise.all(Array.from({ length: 90 }, (_, i) => send(nodes[i % 3]!, "GET", "/api/v1/links/", { key: limited.api_key })));
    expect(tries.filter((t) => t.status === 200).length).toBe(30);
    expect(tries.filter((t) => t.status === 429).length).toBe(60);
  },
  600_000,
);
