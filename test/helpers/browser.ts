/**
 * @module test/helpers/browser
 * Headless Debian Chromium through playwright-core, with the flags TOOLCHAIN "Browser tests"
 * lists. playwright-core refuses `--user-data-dir`, so a persistent context on a temporary
 * profile directory is used; the directory is removed when the context closes. Never downloads
 * a browser.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

/** Debian's Chromium; override with `EARSHOT_TEST_CHROMIUM`. */
export const CHROMIUM_PATH = process.env.EARSHOT_TEST_CHROMIUM ?? "/usr/bin/chromium";

const BASE_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Launches Chromium. By default the page gets a fake microphone, granted without a prompt,
 * that plays `fakeAudioWav` in a loop (a beep without it). `microphone: false` leaves the fake
 * devices out, so `getUserMedia` fails as on a machine without a microphone. `bypassCSP: true`
 * lets a test inject scripts such as axe-core (TOOLCHAIN "Accessibility checks"); the pages keep
 * their CSP header for real users. `executablePath` replaces {@link CHROMIUM_PATH} (e.g. a wrapper
 * that starts Chromium inside a network namespace, test/helpers/lan-namespace.ts).
 * @returns the context; `close()` also deletes the temporary profile
 */
export async function launchBrowser(
  opts: { fakeAudioWav?: string; microphone?: boolean; bypassCSP?: boolean; executablePath?: string } = {},
): Promise<BrowserContext> {
  const profile = await mkdtemp(path.join(tmpdir(), "earshot-chromium-"));
  const args = [...BASE_ARGS];
  if (opts.microphone !== false) {
    args.push("--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream");
    if (opts.fakeAudioWav) args.push(`--use-file-for-fake-audio-capture=${opts.fakeAudioWav}`);
  }
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: opts.executablePath ?? CHROMIUM_PATH,
      headless: true,
      args,
      ...(opts.bypassCSP ? { bypassCSP: true } : {}),
    });
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
  const close = context.close.bind(context);
  context.close = async (options) => {
    try {
      await close(options);
    } finally {
      await rm(profile, { recursive: true, force: true });
    }
  };
  return context;
}
