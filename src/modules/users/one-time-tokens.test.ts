/**
 * One-time links that outlive their purpose (security review): a setup URL once the workspace has
 * an owner, and older password-reset links after a newer one was used or the password changed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { BASE, createTestApi, type TestApi } from "../../../test/helpers/api.ts";
import { PASSWORD, addUser, signIn } from "../../../test/helpers/console-session.ts";
import { issueOneTimeToken } from "./accounts.ts";
import { createUser, passwordResetUrl } from "./admin.ts";

let t: TestApi;
beforeAll(async () => {
  t = await createTestApi();
});
afterAll(() => t.close());

const setup = (token: string, email: string) =>
  t.call("POST", "/api/v1/auth/setup/", { key: null, headers: { origin: BASE }, body: { token, name: "Mallory", email, password: "mallory password 123" } });
const reset = (url: string, password: string) =>
  t.call("POST", "/api/v1/auth/password-reset/", { key: null, headers: { origin: BASE }, body: { token: new URL(url).searchParams.get("token"), password } });

test("a setup URL adds no owner once the workspace has one: refused in the transaction, and voided by `user create`", async () => {
  const ws = await t.newWorkspace("Setup race");
  const early = await issueOneTimeToken(t.db, "setup", { workspaceUuid: ws.workspace_uuid });
  // An owner made another way (here directly, as a second setup URL or an invite might).
  await addUser(t, "first-owner@example.com", "owner", { workspaceUuid: ws.workspace_uuid });
  const r = await setup(early.token, "mallory@evil.test");
  expect([r.status, r.json.code]).toEqual([404, "NOT_FOUND"]);
  // `earshot user create` of an owner marks the workspace's pending setup URLs used.
  const other = await t.newWorkspace("Setup by CLI");
  const pending = await issueOneTimeToken(t.db, "setup", { workspaceUuid: other.workspace_uuid });
  await createUser(t.db, BASE, { email: "cli-owner@example.com", workspaceUuid: other.workspace_uuid, role: "owner", password: PASSWORD });
  const row = await t.db.selectFrom("one_time_tokens").select("used_at").where("uuid", "=", pending.uuid).executeTakeFirstOrThrow();
  expect(row.used_at).not.toBeNull();
  expect((await setup(pending.token, "mallory2@evil.test")).status).toBe(404);
  const owners = await t.db
    .selectFrom("memberships")
    .select("user_uuid")
    .where("role", "=", "owner")
    .where("workspace_uuid", "in", [ws.workspace_uuid, other.workspace_uuid])
    .execute();
  expect(owners).toHaveLength(2);
});

test("using a reset link voids the user's older ones; so does changing the password", async () => {
  await addUser(t, "resetter@example.com", "member");
  const older = await passwordResetUrl(t.db, BASE, "resetter@example.com");
  const newer = await passwordResetUrl(t.db, BASE, "resetter@example.com");
  expect((await reset(newer, "brand new password 1")).status).toBe(200);
  expect((await reset(older, "attacker password 12")).status).toBe(404);
  await signIn(t, "resetter@example.com", "brand new password 1");

  const outstanding = await passwordResetUrl(t.db, BASE, "resetter@example.com");
  const s = await signIn(t, "resetter@example.com", "brand new password 1");
  const changed = await s.call("POST", "/api/v1/auth/me/password/", {
    body: { current_password: "brand new password 1", new_password: "another new password" },
  });
  expect(changed.status).toBe(200);
  expect((await reset(outstanding, "attacker password 12")).status).toBe(404);
  await signIn(t, "resetter@example.com", "another new password");
});
