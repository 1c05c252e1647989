/**
 * Workspace hosts (DESIGN §3): a dedicated origin serves the workspace's links at `/i/{slug}`, so
 * a host belongs to one workspace only, and never the server's own EARSHOT_PUBLIC_URL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BASE, createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { addUser, signIn } from "../../../test/helpers/console-session.ts";
import { createWorkspace, updateWorkspace } from "./service.ts";

let t: TestApi;
beforeAll(async () => {
  t = await createTestApi();
});
afterAll(() => t.close());

const pageTitle = async (host: string, slug: string) => {
  const r = await t.app.handle(new Request(`http://${host}/i/${slug}`, { headers: { host } }));
  return [r.status, /<title>([^<]*)/.exec(await r.text())?.[1] ?? null];
};

describe("workspace host", () => {
  test("another workspace cannot claim a host already in use (any case or scheme): 400 /host, the links stay the owner's", async () => {
    const victim = await t.newWorkspace("Victim");
    await updateWorkspace(t.db, victim.workspace_uuid, { host: "https://feedback.victim.lan" });
    await t.call("POST", "/api/v1/links/", { key: victim.api_key, body: { name: "Survey", slug: "survey", questions: [{ prompt: "Hi", type: "text" }] } });
    expect(await pageTitle("feedback.victim.lan", "survey")).toEqual([200, "Survey"]);

    await addUser(t, "evil@example.com", "owner");
    const evil = await signIn(t, "evil@example.com");
    for (const host of ["https://feedback.victim.lan", "http://FEEDBACK.Victim.lan", "https://feedback.victim.lan/"]) {
      const p = await evil.call("PATCH", "/api/v1/workspace/", { body: { host } });
      expect([p.status, p.json.code, p.json.errors?.[0]?.pointer]).toEqual([400, "VALIDATION_ERROR", "/host"]);
    }
    await t.call("POST", "/api/v1/links/", { body: { name: "Log in to continue", slug: "survey", questions: [{ prompt: "Your password?", type: "text" }] } });
    expect(await pageTitle("feedback.victim.lan", "survey")).toEqual([200, "Survey"]);
    // A new workspace cannot take it either; the owner may set its own host again.
    await expect(createWorkspace(t.db, { name: "Copycat", host: "https://feedback.victim.lan" })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    await updateWorkspace(t.db, victim.workspace_uuid, { host: "https://Feedback.victim.lan" });
  });

  test("the server's own EARSHOT_PUBLIC_URL host is refused", async () => {
    const owner = await signIn(t, "evil@example.com"); // an owner of the test workspace (above)
    const p = await owner.call("PATCH", "/api/v1/workspace/", { body: { host: BASE } });
    expect([p.status, p.json.code, p.json.errors?.[0]?.pointer]).toEqual([400, "VALIDATION_ERROR", "/host"]);
    await expect(createWorkspace(t.db, { name: "Shadow", host: "https://LOCALHOST", publicUrl: BASE })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    const ok = await owner.call("PATCH", "/api/v1/workspace/", { body: { host: "https://feedback.mine.lan" } });
    expect([ok.status, ok.json.host]).toEqual([200, "https://feedback.mine.lan"]);
  });
});
