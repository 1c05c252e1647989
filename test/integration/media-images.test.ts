/**
 * Images for image-choice cards (issue 26; docs/api.md "Images"), over real HTTP against a server
 * process on the test engine: `POST media/images/` with a key takes PNG, JPEG, WebP and GIF by
 * their bytes and refuses SVG, HTML and anything mislabelled (415), an empty body (400), more
 * than 5 MiB (413), no key (401) and a key without links:write (403); the image is served
 * publicly with its sniffed type, `nosniff` and a sandboxing CSP, and its URL is accepted as a
 * card's media_url.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dropTestDatabase } from "../helpers/db.ts";
import { startServer, type RunningServer } from "../helpers/process.ts";
import { api, createWorkspace, makeDataDir, removeDir } from "../e2e/voice-flow.ts";

/** A real 1 × 1 PNG. */
export const PNG_1X1 = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);
/** A real 1 × 1 GIF. */
const GIF_1X1 = Uint8Array.from(atob("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="), (c) => c.charCodeAt(0));
const ascii = (s: string) => new TextEncoder().encode(s);
/** Signatures as the formats begin (file-type judges by these). */
const JPEG_HEAD = Uint8Array.from([
  0xff,
  0xd8,
  0xff,
  0xe0,
  0x00,
  0x10,
  ...ascii("JFIF"),
  0x00,
  0x01,
  0x01,
  0x00,
  0x00,
  0x01,
  0x00,
  0x01,
  0x00,
  0x00,
  0xff,
  0xd9,
]);
const WEBP_HEAD = Uint8Array.from([
  ...ascii("RIFF"),
  0x1a,
  0,
  0,
  0,
  ...ascii("WEBPVP8L"),
  0x0d,
  0,
  0,
  0,
  0x2f,
  0,
  0,
  0,
  0x10,
  0x07,
  0x10,
  0x11,
  0x11,
  0x88,
  0x88,
  0xfe,
  0x07,
  0,
]);
const SVG = ascii('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

let dataDir: string;
let server: RunningServer;
let apiKey: string;

beforeAll(async () => {
  dataDir = await makeDataDir();
  apiKey = (await createWorkspace(dataDir)).api_key;
  server = await startServer({ dataDir });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await dropTestDatabase(dataDir);
  await removeDir(dataDir);
});

function upload(bytes: Uint8Array, type: string, key: string | null = apiKey): Promise<Response> {
  return fetch(`${server.baseUrl}/api/v1/media/images/`, {
    method: "POST",
    headers: { "content-type": type, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: bytes as BodyInit,
  });
}

describe("POST media/images/ and the served image", () => {
  test("PNG, JPEG, WebP and GIF are stored and served back byte for byte with their sniffed type", async () => {
    const cases: [Uint8Array, string][] = [
      [PNG_1X1, "image/png"],
      [JPEG_HEAD, "image/jpeg"],
      [WEBP_HEAD, "image/webp"],
      [GIF_1X1, "image/gif"],
    ];
    for (const [bytes, type] of cases) {
      // The declared type does not matter: the bytes decide.
      const res = await upload(bytes, "application/octet-stream");
      expect({ type, status: res.status }).toEqual({ type, status: 201 });
      const image = (await res.json()) as any;
      expect(image).toMatchObject({ content_type: type, size: bytes.byteLength });
      expect(image.url).toMatch(/^http:\/\/localhost:\d+\/api\/v1\/media\/images\/[0-9a-f-]{36}\/$/);
      const served = await fetch(`${server.baseUrl}${new URL(image.url).pathname}`);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe(type);
      expect(served.headers.get("x-content-type-options")).toBe("nosniff");
      expect(served.headers.get("content-security-policy")).toContain("sandbox");
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  test("SVG, HTML and text are refused whatever they are labelled (415); empty is 400; over 5 MiB is 413", async () => {
    for (const [bytes, type] of [
      [SVG, "image/svg+xml"],
      [SVG, "image/png"],
      [ascii("<!doctype html><script>alert(1)</script>"), "image/png"],
      [ascii("just text"), "text/plain"],
    ] as const) {
      const res = await upload(bytes, type);
      expect({ type, status: res.status, code: ((await res.json()) as any).code }).toEqual({ type, status: 415, code: "UNSUPPORTED_MEDIA_TYPE" });
    }
    const json = await fetch(`${server.baseUrl}/api/v1/media/images/`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ url: "https://example.com/a.png" }),
    });
    expect(json.status).toBe(415);
    const empty = await upload(new Uint8Array(0), "image/png");
    expect([empty.status, ((await empty.json()) as any).code]).toEqual([400, "VALIDATION_ERROR"]);
    const big = new Uint8Array(5 * 1024 * 1024 + 1);
    big.set(PNG_1X1);
    const tooBig = await upload(big, "image/png");
    expect([tooBig.status, ((await tooBig.json()) as any).code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    // Just at the limit is fine.
    const atLimit = await upload(big.subarray(0, 5 * 1024 * 1024), "image/png");
    expect(atLimit.status).toBe(201);
  });

  test("a key is needed, with links:write; unknown images are 404", async () => {
    expect((await upload(PNG_1X1, "image/png", null)).status).toBe(401);
    const reader = await api(server, apiKey, "POST", "tokens/", { name: "Reader", scopes: ["links:read"] });
    const refused = await upload(PNG_1X1, "image/png", reader.key);
    expect([refused.status, ((await refused.json()) as any).code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    expect((await fetch(`${server.baseUrl}/api/v1/media/images/${crypto.randomUUID()}/`)).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/api/v1/media/images/..%2F..%2Fetc/`)).status).toBe(404);
  });

  test("an uploaded image's URL is accepted as an image-choice card's media_url", async () => {
    const image = (await (await upload(PNG_1X1, "image/png")).json()) as any;
    const link = await api(server, apiKey, "POST", "links/", {
      name: "Designs",
      questions: [
        {
          prompt: "Which design?",
          type: "image_choice",
          configuration: { cards: [{ id: "a", label: "A", media_url: image.url, media_type: "image" }] },
        },
      ],
    });
    expect(link.questions[0].configuration.cards[0].media_url).toBe(image.url);
  });
});
