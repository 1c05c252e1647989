/**
 * @module test/e2e/console-mail.test
 * Settings › Mail in Chromium against a real server (issue 28, DESIGN §15; docs/console.md
 * "Mail"): with EARSHOT_SMTP_URL pointing at a real SMTP server run in the test (STARTTLS, a test
 * CA), "Send test email" shows "sent" with the Message-ID the server received; with the server
 * refusing, it shows the SMTP error (never the password). An invite made in the console is mailed
 * and its "Mail" column says "Sent". Screenshots at 1280 and 390 px (test-results/console/), and
 * the section passes axe. Runs against the compiled binary when `EARSHOT_BIN` is set (nodemailer
 * inside the single executable).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { OWNER, openConsoleAsOwner, type ConsoleOwner } from "../helpers/console-browser.ts";
import { createTestCertificates, type TestCertificates } from "../helpers/https-receiver.ts";
import type { RunningServer } from "../helpers/process.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { expectAccessible, SCREENSHOT_DIR } from "./console-walk.ts";

const TIMEOUT_MS = 120_000;
const SMTP_PASS = "smtp-secret-9f2c";
const BINARY = process.env.EARSHOT_BIN ? path.resolve(process.env.EARSHOT_BIN) : null;

let certs: TestCertificates;
let smtp: TestSmtpServer;
let session: ConsoleOwner;
let server: RunningServer;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  certs = await createTestCertificates();
  smtp = await startSmtpServer({ certs, auth: { user: "earshot", pass: SMTP_PASS } });
  session = await openConsoleAsOwner({
    ...(BINARY ? { bin: [BINARY] } : {}),
    env: {
      EARSHOT_SMTP_URL: `smtp://earshot:${SMTP_PASS}@localhost:${smtp.port}/?starttls=required`,
      EARSHOT_MAIL_FROM: "Earshot <earshot@example.com>",
      EARSHOT_SMTP_CA_FILE: certs.caFile,
    },
    browser: { microphone: false, bypassCSP: true },
  });
  ({ server, browser, page } = session);
}, TIMEOUT_MS);

afterAll(async () => {
  await session?.close();
  await smtp?.close();
  if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
});

async function shoot(name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 844 });
    await page.getByRole("region", { name: "Mail" }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `mail-${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test(
  "Send test email shows the message sent, then the SMTP error when the server refuses",
  async () => {
    await page.goto(`${new URL(page.url()).origin}/console/settings/`);
    const section = page.getByRole("region", { name: "Mail" });
    await section.getByText("Invites and password resets are also sent by mail, from").waitFor();
    await section.getByRole("button", { name: "Send test email" }).click();
    const sent = section.getByRole("status").filter({ hasText: "Test email sent to ada@example.com" });
    await sent.waitFor();
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.to).toEqual([OWNER.email]);
    expect(mail!.secure).toBe(true);
    expect(await sent.textContent()).toContain(mail!.parsed.messageId!);
    await expectAccessible(page, "settings-mail");
    await shoot("sent");

    smtp.refuseWith(550);
    await section.getByLabel("Test recipient").fill("ops@example.net");
    await section.getByRole("button", { name: "Send test email" }).click();
    const error = section.getByRole("alert");
    await error.waitFor();
    const text = (await error.textContent()) ?? "";
    expect(text).toContain("The test message to ops@example.net was not sent");
    expect(text).toContain("550");
    expect(text).not.toContain(SMTP_PASS);
    await shoot("refused");
    smtp.refuseWith(null);
  },
  TIMEOUT_MS,
);

test(
  "an invite made in the console is mailed, and Pending invites says so",
  async () => {
    await page.goto(`${new URL(page.url()).origin}/console/settings/`);
    await page.getByLabel("Invite email").fill("grace@example.com");
    await page.getByLabel("Invite role").selectOption("member");
    await page.getByRole("button", { name: "Create invite" }).click();
    await page.getByText("It is also mailed to grace@example.com").waitFor();
    const received = await smtp.waitForMessages(2);
    const invite = received.find((m) => m.to[0] === "grace@example.com")!;
    const url = (await page.getByLabel("Invite URL").inputValue()).trim();
    expect(invite.parsed.text).toContain(url);
    // The list shows the state the job runner recorded.
    const row = page.getByRole("region", { name: "Pending invites" }).getByRole("row", { name: /grace@example\.com/ });
    for (let i = 0; i < 50 && !(await row.textContent())?.includes("Sent"); i++) {
      await Bun.sleep(200);
      await page.reload();
    }
    expect(await row.textContent()).toContain("Sent");
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      await page.getByRole("region", { name: "Pending invites" }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `mail-invite-sent-${width}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  },
  TIMEOUT_MS,
);
