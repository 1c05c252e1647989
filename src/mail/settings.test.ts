/**
 * EARSHOT_SMTP_URL and EARSHOT_MAIL_FROM (DESIGN §15): what the URL means, and the clear start-up
 * errors of a bad one — which never repeat the password.
 */
import { expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../config.ts";
import { parseSmtpUrl } from "./settings.ts";

const errorOf = (env: Record<string, string>) => {
  try {
    loadConfig(env, { dataDir: os.tmpdir() });
  } catch (err) {
    return (err as Error).message;
  }
  return null;
};

test("smtp:// upgrades with STARTTLS (required with ?starttls=required), smtps:// is implicit TLS; credentials are percent-decoded", () => {
  expect(parseSmtpUrl("smtp://mail.example.com")).toEqual({ host: "mail.example.com", port: 587, secure: false, requireTls: false, auth: null });
  expect(parseSmtpUrl("smtp://u%40x:p%2Fw%3Ad@mail.example.com:2525/?starttls=required")).toEqual({
    host: "mail.example.com",
    port: 2525,
    secure: false,
    requireTls: true,
    auth: { user: "u@x", pass: "p/w:d" },
  });
  expect(parseSmtpUrl("smtps://relay@[::1]")).toMatchObject({ host: "::1", port: 465, secure: true, auth: { user: "relay", pass: "" } });
});

test("a bad EARSHOT_SMTP_URL or EARSHOT_MAIL_FROM stops the start with a message naming the variable and never the password", () => {
  const from = { EARSHOT_MAIL_FROM: "earshot@example.com" };
  expect(errorOf({ ...from, EARSHOT_SMTP_URL: "http://user:hunter2-secret@mail.example.com" })).toContain(
    "EARSHOT_SMTP_URL: the scheme must be smtp:// or smtps://",
  );
  expect(errorOf({ ...from, EARSHOT_SMTP_URL: "http://user:hunter2-secret@mail.example.com" })).not.toContain("hunter2");
  expect(errorOf({ ...from, EARSHOT_SMTP_URL: "smtp://u:hunter2-secret@mail.example.com/?tls=off" })).toContain("EARSHOT_SMTP_URL: unknown parameter tls");
  expect(errorOf({ ...from, EARSHOT_SMTP_URL: "smtps://mail.example.com/?starttls=required" })).toContain("starttls applies to smtp:// only");
  expect(errorOf({ ...from, EARSHOT_SMTP_URL: "smtp://mail.example.com/?starttls=maybe" })).toContain("starttls must be one of required, opportunistic");
  expect(errorOf({ ...from, EARSHOT_SMTP_URL: "not a url hunter2-secret" })).toContain("EARSHOT_SMTP_URL: not a URL");
  expect(errorOf({ ...from, EARSHOT_SMTP_URL: "not a url hunter2-secret" })).not.toContain("hunter2");
  expect(errorOf({ EARSHOT_SMTP_URL: "smtp://mail.example.com" })).toContain("EARSHOT_MAIL_FROM: needed with EARSHOT_SMTP_URL");
  expect(errorOf({ EARSHOT_SMTP_URL: "smtp://mail.example.com", EARSHOT_MAIL_FROM: "nobody" })).toContain("EARSHOT_MAIL_FROM: expected an address");
  expect(errorOf({ ...from, EARSHOT_SMTP_URL: "smtp://mail.example.com", EARSHOT_SMTP_CA_FILE: "/nonexistent/ca.pem" })).toContain(
    "EARSHOT_SMTP_CA_FILE: cannot read /nonexistent/ca.pem",
  );
});

test("the SMTP URL may come from EARSHOT_SMTP_URL_FILE; setting both is refused", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-smtp-"));
  try {
    const file = path.join(dir, "url");
    fs.writeFileSync(file, "smtps://relay:s3cret@mail.example.com\n");
    const cfg = loadConfig({ EARSHOT_SMTP_URL_FILE: file, EARSHOT_MAIL_FROM: "Earshot <earshot@example.com>" }, { dataDir: dir });
    expect([cfg.smtpUrl, cfg.mailFrom]).toEqual(["smtps://relay:s3cret@mail.example.com", "Earshot <earshot@example.com>"]);
    const both = errorOf({ EARSHOT_SMTP_URL_FILE: file, EARSHOT_SMTP_URL: "smtp://x", EARSHOT_MAIL_FROM: "a@b.c" });
    expect(both).toContain("EARSHOT_SMTP_URL_FILE: set either EARSHOT_SMTP_URL or EARSHOT_SMTP_URL_FILE, not both");
    expect(both).not.toContain("s3cret");
    // Without mail, nothing is configured (and EARSHOT_MAIL_FROM alone does nothing).
    expect(loadConfig({ EARSHOT_MAIL_FROM: "a@b.c" }, { dataDir: dir })).toMatchObject({ smtpUrl: null, mailFrom: null });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
