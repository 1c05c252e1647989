/**
 * The `EARSHOT_OIDC_*` variables through loadConfig (DESIGN §15): the parsed settings, the
 * client secret from `_FILE`, the role mapping's rule (most privileged match; owner not mappable)
 * and the refusals at start (each naming its variable).
 */
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../config.ts";
import { mappedRole } from "./settings.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-oidc-settings-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const BASE = { EARSHOT_OIDC_ISSUER: "https://id.example.com/realms/acme", EARSHOT_OIDC_CLIENT_ID: "earshot" };

test("the settings, with the client secret from EARSHOT_OIDC_CLIENT_SECRET_FILE", () => {
  const file = path.join(dir, "secret");
  fs.writeFileSync(file, "s3cret-from-a-file\n");
  const { oidc, passwordSignIn } = loadConfig({
    ...BASE,
    EARSHOT_OIDC_CLIENT_SECRET_FILE: file,
    EARSHOT_OIDC_ALLOWED_DOMAINS: "Example.com, @acme.test",
    EARSHOT_OIDC_ROLE_CLAIM: "groups",
    EARSHOT_OIDC_ROLE_MAP: "earshot-admins=admin, earshot=member,readers=viewer",
    EARSHOT_OIDC_AUTO_JOIN: "true",
    EARSHOT_PASSWORD_SIGNIN: "false",
  });
  expect(passwordSignIn).toBe(false);
  expect(oidc).toEqual({
    issuer: "https://id.example.com/realms/acme",
    clientId: "earshot",
    clientSecret: "s3cret-from-a-file",
    allowedDomains: ["example.com", "acme.test"],
    roleClaim: "groups",
    roleMap: [
      { value: "earshot-admins", role: "admin" },
      { value: "earshot", role: "member" },
      { value: "readers", role: "viewer" },
    ],
    autoJoin: true,
    defaultRole: "member",
    providerName: "id.example.com",
  });
  // The most privileged match wins; strings and arrays of strings are read, anything else holds nothing.
  expect(mappedRole(oidc!, ["readers", "earshot-admins"])).toBe("admin");
  expect(mappedRole(oidc!, "earshot")).toBe("member");
  expect(mappedRole(oidc!, ["other"])).toBeNull();
  expect(mappedRole(oidc!, { earshot: true })).toBeNull();
});

test("unset issuer: single sign-on off, passwords on", () => {
  const config = loadConfig({});
  expect(config.oidc).toBeNull();
  expect(config.passwordSignIn).toBe(true);
});

test("invalid settings stop the start, naming the variable", () => {
  const bad: [Record<string, string>, RegExp][] = [
    [{ EARSHOT_OIDC_ISSUER: "http://id.example.com", EARSHOT_OIDC_CLIENT_ID: "x" }, /EARSHOT_OIDC_ISSUER: must be an https:\/\/ URL/],
    [{ EARSHOT_OIDC_ISSUER: "https://id.example.com" }, /EARSHOT_OIDC_CLIENT_ID: needed/],
    [
      { ...BASE, EARSHOT_OIDC_ROLE_CLAIM: "groups", EARSHOT_OIDC_ROLE_MAP: "boss=owner" },
      /EARSHOT_OIDC_ROLE_MAP: "boss=owner" is not value=admin\|member\|viewer/,
    ],
    [{ ...BASE, EARSHOT_OIDC_ROLE_CLAIM: "groups" }, /EARSHOT_OIDC_ROLE_MAP: needed/],
    [{ ...BASE, EARSHOT_OIDC_ROLE_MAP: "a=admin" }, /EARSHOT_OIDC_ROLE_CLAIM: needed/],
    [{ EARSHOT_PASSWORD_SIGNIN: "false" }, /EARSHOT_PASSWORD_SIGNIN: false needs single sign-on/],
  ];
  for (const [env, message] of bad) expect(() => loadConfig(env)).toThrow(message);
  // Plain HTTP is fine for a provider on this machine.
  expect(loadConfig({ EARSHOT_OIDC_ISSUER: "http://127.0.0.1:9000", EARSHOT_OIDC_CLIENT_ID: "x" }).oidc?.issuer).toBe("http://127.0.0.1:9000");
});
