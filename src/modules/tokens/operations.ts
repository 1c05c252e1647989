/**
 * @module tokens/operations
 * The declarations of the `tokens/` endpoints (spec: API tokens; DESIGN §5): route, OpenAPI
 * entry, scope and audit in one place (collected by src/api/operations.ts).
 */
import { z } from "zod";
import { envelopeOf, operation, pagedQuery, textOf, type Operation } from "../../http/operation.ts";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { createdTokenSchema, createTokenSchema, tokenSchema } from "./model.ts";

const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED"];
const WRITE = [...AUTH, "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
const message = lazySchema(() => z.object({ message: z.string() }));

/** The tokens endpoints, one declaration each: route, document entry, scope and audit. */
export const tokenOps = {
  create: operation({
    method: "post",
    path: "/api/v1/tokens/",
    summary: "Create an API key (shown once)",
    tag: "tokens",
    scope: "tokens:write",
    audit: { action: "token.created", target: (_p, b) => ({ type: "token", uuid: textOf(b?.uuid), label: textOf(b?.name) }) },
    body: createTokenSchema,
    success: { status: 201, schema: createdTokenSchema, description: "Created token with its key" },
    errors: [...WRITE, "INSUFFICIENT_SCOPE"],
  }),
  list: operation({
    method: "get",
    path: "/api/v1/tokens/",
    summary: "List active API keys",
    tag: "tokens",
    scope: "tokens:read",
    query: pagedQuery(),
    success: { status: 200, schema: envelopeOf(tokenSchema), description: "Page of tokens" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "INSUFFICIENT_SCOPE"],
  }),
  revoke: operation({
    method: "delete",
    path: "/api/v1/tokens/:token_uuid/",
    summary: "Revoke an API key immediately",
    tag: "tokens",
    scope: "tokens:write",
    recheck: false,
    audit: { action: "token.revoked", target: (p) => ({ type: "token", uuid: p.token_uuid ?? null, label: null }) },
    success: { status: 200, schema: message, description: "Revoked" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const tokenOperations: Operation[] = Object.values(tokenOps);
