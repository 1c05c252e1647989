/**
 * Secrets from files (DESIGN §14): every secret variable `X` also reads `X_FILE`; the file's one
 * trailing newline is dropped; setting both, an unreadable or an empty file is refused with the
 * variable's name and never the value. Also the metrics token's minimum length and the access log flag.
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig, SECRET_VARIABLES } from "./config.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-config-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function secretFile(name: string, content: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content, { mode: 0o600 });
  return file;
}

test("the secret variables are the database URL, the signing secret, the metrics token, the SMTP URL and the OIDC client secret", () => {
  expect([...SECRET_VARIABLES]).toEqual([
    "EARSHOT_DATABASE_URL",
    "EARSHOT_SIGNING_SECRET",
    "EARSHOT_METRICS_TOKEN",
    "EARSHOT_SMTP_URL",
    "EARSHOT_OIDC_CLIENT_SECRET",
  ]);
});

test("each secret is read from X_FILE, one trailing newline dropped", () => {
  const cfg = loadConfig({
    EARSHOT_DATABASE_URL_FILE: secretFile("db", "postgres://earshot:s3cret@db.internal:5432/earshot\n"),
    EARSHOT_SIGNING_SECRET_FILE: secretFile("signing", "signing secret with spaces  "),
    EARSHOT_METRICS_TOKEN_FILE: secretFile("metrics", "metrics-token-0123456789\r\n"),
  });
  expect(cfg.databaseUrl).toBe("postgres://earshot:s3cret@db.internal:5432/earshot");
  expect(cfg.signingSecret).toBe("signing secret with spaces  ");
  expect(cfg.metricsToken).toBe("metrics-token-0123456789");
});

test("a secret from a file is validated like the variable", () => {
  expect(() => loadConfig({ EARSHOT_DATABASE_URL_FILE: secretFile("bad-db", "mysql://nope\n") })).toThrow(/EARSHOT_DATABASE_URL: a postgres:\/\//);
  expect(() => loadConfig({ EARSHOT_METRICS_TOKEN_FILE: secretFile("short", "short\n") })).toThrow(/EARSHOT_METRICS_TOKEN: at least 16 characters/);
});

test("both X and X_FILE, a missing file or an empty one: refused by name, without the value", () => {
  const file = secretFile("both", "file-secret-value-123456\n");
  const both = () => loadConfig({ EARSHOT_SIGNING_SECRET: "env-secret-value-123456", EARSHOT_SIGNING_SECRET_FILE: file });
  expect(both).toThrow("EARSHOT_SIGNING_SECRET_FILE: set either EARSHOT_SIGNING_SECRET or EARSHOT_SIGNING_SECRET_FILE, not both");
  let message = "";
  try {
    both();
  } catch (err) {
    message = String(err);
  }
  expect(message).not.toContain("secret-value");
  const missing = path.join(dir, "absent");
  expect(() => loadConfig({ EARSHOT_METRICS_TOKEN_FILE: missing })).toThrow(`EARSHOT_METRICS_TOKEN_FILE: cannot read ${missing} (ENOENT)`);
  expect(() => loadConfig({ EARSHOT_METRICS_TOKEN_FILE: secretFile("empty", "\n") })).toThrow("is empty");
});

test("without files nothing changes; EARSHOT_ACCESS_LOG turns the access log on", () => {
  const cfg = loadConfig({ EARSHOT_ACCESS_LOG: "1" });
  expect([cfg.databaseUrl, cfg.signingSecret, cfg.metricsToken, cfg.accessLog]).toEqual([null, null, null, true]);
  expect(loadConfig({}).accessLog).toBe(false);
});

test("EARSHOT_VAD: energy by default, off when asked, anything else refused by name", () => {
  expect(loadConfig({}).vad).toBe("energy");
  expect(loadConfig({ EARSHOT_VAD: "off" }).vad).toBe("off");
  expect(() => loadConfig({ EARSHOT_VAD: "silero" })).toThrow(/EARSHOT_VAD/);
});

test("EARSHOT_ASR_IDLE_UNLOAD_S: 600 s by default, 0 = never, negative or non-numbers refused by name", () => {
  expect(loadConfig({}).asrIdleUnloadS).toBe(600);
  expect(loadConfig({ EARSHOT_ASR_IDLE_UNLOAD_S: "0" }).asrIdleUnloadS).toBe(0);
  expect(loadConfig({ EARSHOT_ASR_IDLE_UNLOAD_S: "2.5" }).asrIdleUnloadS).toBe(2.5);
  expect(() => loadConfig({ EARSHOT_ASR_IDLE_UNLOAD_S: "-1" })).toThrow(/EARSHOT_ASR_IDLE_UNLOAD_S/);
  expect(() => loadConfig({ EARSHOT_ASR_IDLE_UNLOAD_S: "soon" })).toThrow(/EARSHOT_ASR_IDLE_UNLOAD_S/);
});
