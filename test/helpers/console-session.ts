/**
 * @module test/helpers/console-session
 * Console accounts for API tests: create a user with a role, sign in through `POST auth/login/`,
 * and send requests with the session cookie (plus the CSRF token and a same-origin `Origin`).
 */
import { BASE, type ApiReply, type TestApi } from "./api.ts";
import { hashPassword, insertNewUser } from "../../src/modules/users/accounts.ts";
import { insertMembership } from "../../src/modules/users/repository.ts";
import type { Role } from "../../src/auth/roles.ts";

export const PASSWORD = "correct horse battery staple";

/** Creates a user with `role` in the workspace (default: the test workspace). */
export async function addUser(api: TestApi, email: string, role: Role, opts: { workspaceUuid?: string; password?: string } = {}) {
  const user = await insertNewUser(api.db, { email, name: email.split("@")[0]!, passwordHash: await hashPassword(opts.password ?? PASSWORD) });
  await insertMembership(api.db, {
    user_uuid: user.uuid,
    workspace_uuid: opts.workspaceUuid ?? api.ws.workspace_uuid,
    role,
    date_created: new Date().toISOString(),
  });
  return user;
}

/** The cookie value in a `Set-Cookie` header, or null. */
export function cookieOf(reply: ApiReply): string | null {
  const header = reply.headers.get("set-cookie") ?? "";
  return /earshot_session=([^;]*)/.exec(header)?.[1] || null;
}

export type Signed = {
  cookie: string;
  csrf: string;
  reply: ApiReply;
  call: (method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string> }) => Promise<ApiReply>;
};

/** A session's request function: cookie, CSRF token and `Origin` set (each overridable). */
export function sessionCaller(api: TestApi, cookie: string, csrf: string): Signed["call"] {
  return (method, path, opts = {}) =>
    api.call(method, path, {
      key: null,
      body: opts.body,
      headers: { cookie: `earshot_session=${cookie}`, "x-csrf-token": csrf, origin: BASE, ...opts.headers },
    });
}

/** Signs in; throws unless it answered 200 with a cookie. */
export async function signIn(api: TestApi, email: string, password = PASSWORD, headers: Record<string, string> = {}): Promise<Signed> {
  const reply = await api.call("POST", "/api/v1/auth/login/", { key: null, body: { email, password }, headers: { origin: BASE, ...headers } });
  const cookie = cookieOf(reply);
  if (reply.status !== 200 || !cookie) throw new Error(`sign-in failed: ${reply.status} ${reply.text}`);
  return { cookie, csrf: reply.json.csrf_token, reply, call: sessionCaller(api, cookie, reply.json.csrf_token) };
}
