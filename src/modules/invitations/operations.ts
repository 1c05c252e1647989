/**
 * @module invitations/operations
 * OpenAPI catalogue entries of a link's invitations (DESIGN §13; docs/api.md "Invitations").
 */
import { z } from "zod";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { envelopeOf, pagedQuery, operation, type Operation } from "../../http/operation.ts";
import { createdInvitationsSchema, createInvitationsSchema, invitationSchema, listInvitationsQuerySchema } from "./model.ts";

const BASE = "/api/v1/links/:link_uuid/invitations/";
const tag = "links";
const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED", "INSUFFICIENT_SCOPE"];
const message = lazySchema(() => z.object({ message: z.string() }));

/** The invitation endpoints, one declaration each: route, document entry, scope and audit. */
export const invitationOps = {
  create: operation({
    method: "post",
    path: BASE,
    summary: "Mint personal, single-use invitation URLs (up to 1000, with hidden-field values and an expiry)",
    tag,
    scope: "links:write",
    // One entry per minting request, naming the link and how many (DESIGN §13).
    audit: {
      action: "invitations.created",
      target: (p, b) => ({ type: "link", uuid: p.link_uuid ?? null, label: typeof b?.count === "number" ? `${b.count} invitations` : null }),
    },
    body: createInvitationsSchema,
    success: { status: 201, schema: createdInvitationsSchema, description: "The minted invitations, in the order of hidden" },
    errors: [...AUTH, "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "NOT_FOUND"],
  }),
  list: operation({
    method: "get",
    path: BASE,
    summary: "List a link's invitations with their state (oldest first)",
    tag,
    scope: "links:read",
    query: pagedQuery(listInvitationsQuerySchema),
    success: { status: 200, schema: envelopeOf(invitationSchema), description: "Page of invitations" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "NOT_FOUND"],
  }),
  revoke: operation({
    method: "delete",
    path: `${BASE}:invitation_uuid/`,
    summary: "Revoke an invitation: it can no longer start or submit a response",
    tag,
    scope: "links:write",
    audit: { action: "invitation.revoked", target: (p) => ({ type: "invitation", uuid: p.invitation_uuid ?? null, label: null }) },
    success: { status: 200, schema: message, description: "Revoked" },
    errors: [...AUTH, "NOT_FOUND"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const invitationOperations: Operation[] = Object.values(invitationOps);
