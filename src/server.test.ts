import { expect, test } from "bun:test";
import { $ } from "bun";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "./config.ts";
import { startServer } from "./server.ts";

test("earshot serve terminates TLS itself when EARSHOT_TLS_CERT and EARSHOT_TLS_KEY are set", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-tls-"));
  const cert = path.join(dir, "cert.pem");
  const key = path.join(dir, "key.pem");
  await $`openssl req -x509 -newkey rsa:2048 -nodes -keyout ${key} -out ${cert} -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1`.quiet();
  const config = loadConfig(
    { EARSHOT_TLS_CERT: cert, EARSHOT_TLS_KEY: key, EARSHOT_LOG_LEVEL: "silent" },
    { dataDir: path.join(dir, "data"), port: 0, host: "127.0.0.1" },
  );
  expect(config.publicUrl.startsWith("https://")).toBe(true);
  const server = await startServer(config);
  try {
    expect(server.url.startsWith("https://127.0.0.1:")).toBe(true);
    const ca = fs.readFileSync(cert, "utf8");
    const health = await fetch(`${server.url}/healthz`, { tls: { ca } });
    expect(health.status).toBe(200);
    const unauth = await fetch(`${server.url}/api/v1/links/`, { tls: { ca } });
    expect(unauth.status).toBe(401);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
