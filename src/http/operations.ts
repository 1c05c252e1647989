/**
 * @module http/operations
 * The catalogue of API operations for the OpenAPI document. A test checks that every route the
 * server answers is listed here and the other way round.
 */
import { z } from "zod";
import { envelopeOf, pagedQuery, type Operation } from "./openapi.ts";
import { lazySchema } from "../shared/lazy-schema.ts";
import { createLinkSchema, linkSchema, listLinksQuerySchema, patchLinkSchema } from "../modules/links/model.ts";
import { exportQuerySchema, listResponsesQuerySchema, reprocessedSchema, responseSchema, workspaceExportQuerySchema } from "../modules/responses/model.ts";
import { createdTokenSchema, createTokenSchema, tokenSchema } from "../modules/tokens/model.ts";
import { patchWorkspaceSchema, workspaceSchema } from "../modules/workspaces/model.ts";
import { accountOperations } from "../modules/users/operations.ts";
import { intakeOperations } from "../modules/intake/operations.ts";
import { webhookOperations } from "../modules/webhooks/operations.ts";
import { insightsOperations } from "../modules/insights/operations.ts";
import { statsOperations } from "../modules/stats/operations.ts";
import { mediaOperations } from "../modules/media/operations.ts";
import { retentionOperations } from "../modules/retention/operations.ts";

import { themeOperations } from "../modules/themes/operations.ts";
import { invitationOperations } from "../modules/invitations/operations.ts";
import { alertOperations } from "../modules/alerts/operations.ts";

const message = lazySchema(() => z.object({ message: z.string() }));
const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED"];
const WRITE = [...AUTH, "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];

export const apiOperations: Operation[] = [
  {
    method: "get",
    path: "/api/v1/workspace/",
    summary: "The key's workspace, with limits and usage",
    tag: "workspace",
    scope: null,
    success: { status: 200, schema: workspaceSchema, description: "Workspace" },
    errors: AUTH,
  },
  {
    method: "patch",
    path: "/api/v1/workspace/",
    summary: "Change the workspace's name, host, plan and limits (owners)",
    tag: "workspace",
    scope: "workspace:write",
    body: patchWorkspaceSchema,
    success: { status: 200, schema: workspaceSchema, description: "Workspace" },
    errors: [...WRITE, "NAME_REQUIRED", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "post",
    path: "/api/v1/links/",
    summary: "Create a link",
    tag: "links",
    scope: "links:write",
    body: createLinkSchema,
    success: { status: 201, schema: linkSchema, description: "Created link" },
    errors: [...WRITE, "NAME_REQUIRED", "SLUG_CONFLICT", "LINK_LIMIT_REACHED", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "get",
    path: "/api/v1/links/",
    summary: "List links",
    tag: "links",
    scope: "links:read",
    query: pagedQuery(listLinksQuerySchema),
    success: { status: 200, schema: envelopeOf(linkSchema), description: "Page of links" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "get",
    path: "/api/v1/links/:link_uuid/",
    summary: "Retrieve a link",
    tag: "links",
    scope: "links:read",
    success: { status: 200, schema: linkSchema, description: "Link" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "patch",
    path: "/api/v1/links/:link_uuid/",
    summary: "Update a link (name, slug, status, settings, questions)",
    tag: "links",
    scope: "links:write",
    body: patchLinkSchema,
    success: { status: 200, schema: linkSchema, description: "Updated link" },
    errors: [...WRITE, "NAME_REQUIRED", "SLUG_CONFLICT", "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "delete",
    path: "/api/v1/links/:link_uuid/",
    summary: "Delete a link (its responses are kept)",
    tag: "links",
    scope: "links:write",
    success: { status: 200, schema: message, description: "Deleted" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "get",
    path: "/api/v1/links/:link_uuid/responses/",
    summary: "List a link's responses",
    tag: "responses",
    scope: "responses:read",
    query: pagedQuery(lazySchema(() => listResponsesQuerySchema.omit({ link: true }))),
    success: { status: 200, schema: envelopeOf(responseSchema), description: "Page of responses" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "NOT_FOUND", "INSUFFICIENT_SCOPE"],
    conditional: true,
  },
  {
    method: "get",
    path: "/api/v1/links/:link_uuid/responses/export/",
    summary: "Stream every response as CSV or JSON Lines",
    tag: "responses",
    scope: "responses:read",
    query: exportQuerySchema,
    success: {
      status: 200,
      description: "CSV (one column per field_key; format=csv) or JSON Lines, one response record a line (format=jsonl)",
      mediaTypes: ["text/csv", "application/x-ndjson"],
      schema: z.string(),
    },
    errors: [...AUTH, "VALIDATION_ERROR", "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "get",
    path: "/api/v1/responses/export/",
    summary: "Stream the workspace's responses (every link, or link=) as CSV or JSON Lines",
    tag: "responses",
    scope: "responses:read",
    query: workspaceExportQuerySchema,
    success: {
      status: 200,
      description:
        "CSV (a link_uuid column, then one column per field_key of the workspace's links; format=csv) or JSON Lines, one response record a line (format=jsonl)",
      mediaTypes: ["text/csv", "application/x-ndjson"],
      schema: z.string(),
    },
    errors: [...AUTH, "VALIDATION_ERROR", "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "get",
    path: "/api/v1/links/:link_uuid/responses/:response_uuid/",
    summary: "Retrieve a response of a link",
    tag: "responses",
    scope: "responses:read",
    success: { status: 200, schema: responseSchema, description: "Response" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
    conditional: true,
  },
  {
    method: "get",
    path: "/api/v1/responses/",
    summary: "List the workspace's responses (filter with link=)",
    tag: "responses",
    scope: "responses:read",
    query: pagedQuery(listResponsesQuerySchema),
    success: { status: 200, schema: envelopeOf(responseSchema), description: "Page of responses" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "INSUFFICIENT_SCOPE"],
    conditional: true,
  },
  {
    method: "get",
    path: "/api/v1/responses/:response_uuid/",
    summary: "Retrieve a response",
    tag: "responses",
    scope: "responses:read",
    success: { status: 200, schema: responseSchema, description: "Response" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
    conditional: true,
  },
  {
    method: "delete",
    path: "/api/v1/responses/:response_uuid/",
    summary: "Erase a response with its recordings and files",
    tag: "responses",
    scope: "responses:write",
    success: { status: 200, schema: message, description: "Erased" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "post",
    path: "/api/v1/responses/:response_uuid/reprocess/",
    summary: "Queue failed or waiting (waiting_for_model) transcriptions and failed analyses of a response again",
    tag: "responses",
    scope: "responses:write",
    success: { status: 200, schema: reprocessedSchema, description: "Answers queued again" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "get",
    path: "/api/v1/responses/:response_uuid/answers/:answer_uuid/audio/",
    summary: "Stream a recording (Bearer key, or the signed exp/sig query of audio_url)",
    tag: "responses",
    scope: "responses:read",
    signedUrl: true,
    success: { status: 200, description: "Audio bytes, in the format uploaded", mediaTypes: ["audio/webm", "audio/ogg", "audio/wav"], schema: z.string() },
    errors: [...AUTH, "NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/v1/responses/:response_uuid/answers/:answer_uuid/follow-ups/:index/audio/",
    summary: "Stream a follow-up's recording (Bearer key or signed URL)",
    tag: "responses",
    scope: "responses:read",
    signedUrl: true,
    success: { status: 200, description: "Audio bytes, in the format uploaded", mediaTypes: ["audio/webm", "audio/ogg", "audio/wav"], schema: z.string() },
    errors: [...AUTH, "NOT_FOUND"],
  },
  {
    method: "get",
    path: "/api/v1/responses/:response_uuid/answers/:answer_uuid/file/",
    summary: "Download an uploaded file",
    tag: "responses",
    scope: "responses:read",
    success: {
      status: 200,
      description: "File bytes, with the Content-Type and name (Content-Disposition) it was uploaded with",
      mediaTypes: ["application/octet-stream"],
      schema: z.string(),
    },
    errors: [...AUTH, "NOT_FOUND"],
  },
  {
    method: "post",
    path: "/api/v1/tokens/",
    summary: "Create an API key (shown once)",
    tag: "tokens",
    scope: "tokens:write",
    body: createTokenSchema,
    success: { status: 201, schema: createdTokenSchema, description: "Created token with its key" },
    errors: [...WRITE, "INSUFFICIENT_SCOPE"],
  },
  {
    method: "get",
    path: "/api/v1/tokens/",
    summary: "List active API keys",
    tag: "tokens",
    scope: "tokens:read",
    query: pagedQuery(),
    success: { status: 200, schema: envelopeOf(tokenSchema), description: "Page of tokens" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "INSUFFICIENT_SCOPE"],
  },
  {
    method: "delete",
    path: "/api/v1/tokens/:token_uuid/",
    summary: "Revoke an API key immediately",
    tag: "tokens",
    scope: "tokens:write",
    success: { status: 200, schema: message, description: "Revoked" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  },
  ...webhookOperations,
  ...accountOperations,
  ...intakeOperations,
  ...insightsOperations,
  ...statsOperations,
  ...mediaOperations,
  ...retentionOperations,

  ...themeOperations,
  ...invitationOperations,
  ...alertOperations,
];
