/**
 * @module themes/operations
 * OpenAPI entries of the themes endpoints (DESIGN §12; collected by src/api/operations.ts).
 */
import { envelopeOf, pagedQuery, operation, textOf, type Operation } from "../../http/operation.ts";
import {
  createThemeSchema,
  listThemesQuerySchema,
  mergeThemeSchema,
  messageSchema,
  patchThemeSchema,
  summaryQuerySchema,
  summarySchema,
  themeSchema,
  themeStatusSchema,
} from "./model.ts";

const AUTH = ["UNAUTHENTICATED", "HTTPS_REQUIRED", "RATE_LIMITED"];
const WRITE = [...AUTH, "INVALID_JSON", "VALIDATION_ERROR", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "INSUFFICIENT_SCOPE"];
const THEMES = "/api/v1/links/:link_uuid/themes/";
const THEME = `${THEMES}:theme_uuid/`;

/** The themes endpoints, one declaration each: route, document entry, scope and audit. */
export const themeOps = {
  list: operation({
    method: "get",
    path: THEMES,
    summary: "A link's themes, largest first: size, share, sentiment, weekly trend and 2–3 quotes each (playable spans for voice answers)",
    tag: "themes",
    scope: "responses:read",
    query: pagedQuery(listThemesQuerySchema),
    success: { status: 200, schema: envelopeOf(themeSchema), description: "Page of themes" },
    errors: [...AUTH, "VALIDATION_ERROR", "INVALID_PAGE", "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
  create: operation({
    method: "post",
    path: THEMES,
    summary: "Create an operator's theme (label, description, example answers); a rebuild is queued so answers near the examples join it",
    tag: "themes",
    scope: "responses:write",
    audit: { action: "theme.created", target: (_p, b) => ({ type: "theme", uuid: textOf(b?.uuid), label: textOf(b?.label) }) },
    body: createThemeSchema,
    success: { status: 201, schema: themeSchema, description: "The theme" },
    errors: [...WRITE, "NOT_FOUND", "QUESTION_NOT_OPEN"],
  }),
  status: operation({
    method: "get",
    path: `${THEMES}status/`,
    summary: "Whether the link's themes are being rebuilt, and how many answers are assigned or not analysed yet",
    tag: "themes",
    scope: "responses:read",
    success: { status: 200, schema: themeStatusSchema, description: "ThemeStatus" },
    errors: [...AUTH, "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
  rebuild: operation({
    method: "post",
    path: `${THEMES}rebuild/`,
    summary: "Rebuild the link's themes now (in the background; operator edits are kept)",
    tag: "themes",
    scope: "responses:write",
    audit: { action: "themes.rebuild_requested", target: (p) => ({ type: "link", uuid: p.link_uuid ?? null, label: null }) },
    emptyBody: true,
    success: { status: 202, schema: themeStatusSchema, description: "Queued; the status as it now reads" },
    errors: [...WRITE, "NOT_FOUND"],
  }),
  get: operation({
    method: "get",
    path: THEME,
    summary: "One theme",
    tag: "themes",
    scope: "responses:read",
    success: { status: 200, schema: themeSchema, description: "The theme" },
    errors: [...AUTH, "NOT_FOUND", "THEME_NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
  update: operation({
    method: "patch",
    path: THEME,
    summary: "Rename (pins the label unless pinned: false), describe or pin a theme",
    tag: "themes",
    scope: "responses:write",
    audit: { action: "theme.updated", target: (p, b) => ({ type: "theme", uuid: p.theme_uuid ?? null, label: textOf(b?.label) }) },
    body: patchThemeSchema,
    success: { status: 200, schema: themeSchema, description: "The theme" },
    errors: [...WRITE, "NOT_FOUND", "THEME_NOT_FOUND"],
  }),
  delete: operation({
    method: "delete",
    path: THEME,
    summary: "Delete a theme; its answers become unassigned (and stay so across rebuilds)",
    tag: "themes",
    scope: "responses:write",
    audit: { action: "theme.deleted", target: (p) => ({ type: "theme", uuid: p.theme_uuid ?? null, label: null }) },
    success: { status: 200, schema: messageSchema, description: "Deleted" },
    errors: [...AUTH, "NOT_FOUND", "THEME_NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
  merge: operation({
    method: "post",
    path: `${THEME}merge/`,
    summary: "Merge a theme into another of the same question; returns the surviving theme",
    tag: "themes",
    scope: "responses:write",
    // The merged theme is the target; the survivor's label says where its answers went.
    audit: { action: "theme.merged", target: (p, b) => ({ type: "theme", uuid: p.theme_uuid ?? null, label: textOf(b?.label) }) },
    body: mergeThemeSchema,
    success: { status: 200, schema: themeSchema, description: "The surviving theme" },
    errors: [...WRITE, "NOT_FOUND", "THEME_NOT_FOUND", "THEME_MERGE_SELF", "THEME_QUESTION_MISMATCH"],
  }),
  summary: operation({
    method: "get",
    path: "/api/v1/links/:link_uuid/summary/",
    summary: "What changed: responses, sentiment and top themes of a period against the one before, new themes, one quote each — JSON and Markdown",
    tag: "themes",
    scope: "responses:read",
    query: summaryQuerySchema,
    success: { status: 200, schema: summarySchema, description: "LinkSummary" },
    errors: [...AUTH, "VALIDATION_ERROR", "NOT_FOUND", "INSUFFICIENT_SCOPE"],
  }),
};

/** In document order (collected by src/api/operations.ts). */
export const themeOperations: Operation[] = Object.values(themeOps);
