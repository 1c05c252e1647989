/**
 * @module mail/operations
 * OpenAPI catalogue entries of the mail settings (DESIGN §15; docs/api.md "Mail").
 */
import { operation, type Operation } from "../../http/operation.ts";
import { mailSettingsSchema, mailTestResultSchema, mailTestSchema } from "./model.ts";

const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED", "INSUFFICIENT_SCOPE"];

/** The mail settings endpoints, one declaration each: route, scope, body and document entry. */
export const mailOps = {
  settings: operation({
    method: "get",
    path: "/api/v1/mail/",
    summary: "Whether mail is configured, and its sender",
    tag: "console accounts",
    scope: "members:read",
    success: { status: 200, schema: mailSettingsSchema, description: "Mail settings" },
    errors: AUTH,
  }),
  test: operation({
    method: "post",
    path: "/api/v1/mail/test/",
    summary: "Send a test message now (not queued) and answer how it went; audited",
    tag: "console accounts",
    scope: "members:write",
    body: mailTestSchema,
    bodyOptional: true,
    success: { status: 200, schema: mailTestResultSchema, description: "The server accepted the message" },
    errors: [...AUTH, "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "MAIL_NOT_CONFIGURED", "MAIL_SEND_FAILED"],
  }),
};

export const mailOperations: Operation[] = Object.values(mailOps);
