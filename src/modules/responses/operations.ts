/**
 * @module responses/operations
 * The declarations of the responses endpoints (DESIGN §7): route, OpenAPI entry, scope and audit
 * in one place (collected by src/api/operations.ts).
 */
import { z } from "zod";
import { envelopeOf, operation, pagedQuery, type Operation } from "../../http/operation.ts";
import { lazySchema } from "../../shared/lazy-schema.ts";
import { exportQuerySchema, listResponsesQuerySchema, reprocessedSchema, responseSchema, workspaceExportQuerySchema } from "./model.ts";

const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED"];
const message = lazySchema(() => z.object({ message: z.string() }));

/** The responses endpoints, one declaration each: route, document entry, scope and audit. */
export const responseOps = {
  listOfLink: operation({
    method: "get",
    path: "/api/v1/links/:link_uuid/responses/",
    summary: "List a link's responses",
    tag: "responses",
    scope: "responses:read",
    query: pagedQuery(lazySchema(() => listResponsesQuerySchema.omit({ link: true }))),
    success: { status: 200, schema: envelopeOf(responseSchema), description: "Page of responses" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "NOT_FOUND", "INSUFFICIENT_SCOPE"],
    conditional: true,
  }),
  exportOfLink: operation({
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
  }),
  export: operation({
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
  }),
  getOfLink: operation({
    method: "get",
    path: "/api/v1/links/:link_uuid/responses/:response_uuid/",
    summary: "Retrieve a response of a link",
    tag: "responses",
    scope: "responses:read",
    success: { status: 200, schema: responseSchema, description: "Response" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
    conditional: true,
  }),
  list: operation({
    method: "get",
    path: "/api/v1/responses/",
    summary: "List the workspace's responses (filter with link=)",
    tag: "responses",
    scope: "responses:read",
    query: pagedQuery(listResponsesQuerySchema),
    success: { status: 200, schema: envelopeOf(responseSchema), description: "Page of responses" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "INSUFFICIENT_SCOPE"],
    conditional: true,
  }),
  get: operation({
    method: "get",
    path: "/api/v1/responses/:response_uuid/",
    summary: "Retrieve a response",
    tag: "responses",
    scope: "responses:read",
    success: { status: 200, schema: responseSchema, description: "Response" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
    conditional: true,
  }),
  erase: operation({
    method: "delete",
    path: "/api/v1/responses/:response_uuid/",
    summary: "Erase a response with its recordings and files",
    tag: "responses",
    scope: "responses:write",
    audit: { action: "response.erased", target: (p) => ({ type: "response", uuid: p.response_uuid ?? null, label: null }) },
    success: { status: 200, schema: message, description: "Erased" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
  reprocess: operation({
    method: "post",
    path: "/api/v1/responses/:response_uuid/reprocess/",
    summary: "Queue failed or waiting (waiting_for_model) transcriptions and failed analyses of a response again",
    tag: "responses",
    scope: "responses:write",
    success: { status: 200, schema: reprocessedSchema, description: "Answers queued again" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
  audio: operation({
    method: "get",
    path: "/api/v1/responses/:response_uuid/answers/:answer_uuid/audio/",
    summary: "Stream a recording (Bearer key, or the signed exp/sig query of audio_url)",
    tag: "responses",
    scope: "responses:read",
    signedUrl: true,
    success: { status: 200, description: "Audio bytes, in the format uploaded", mediaTypes: ["audio/webm", "audio/ogg", "audio/wav"], schema: z.string() },
    errors: [...AUTH, "NOT_FOUND"],
  }),
  followUpAudio: operation({
    method: "get",
    path: "/api/v1/responses/:response_uuid/answers/:answer_uuid/follow-ups/:index/audio/",
    summary: "Stream a follow-up's recording (Bearer key or signed URL)",
    tag: "responses",
    scope: "responses:read",
    signedUrl: true,
    success: { status: 200, description: "Audio bytes, in the format uploaded", mediaTypes: ["audio/webm", "audio/ogg", "audio/wav"], schema: z.string() },
    errors: [...AUTH, "NOT_FOUND"],
  }),
  file: operation({
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
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const responseOperations: Operation[] = Object.values(responseOps);
