/**
 * @module mcp/tools
 * The read-only tools of the MCP endpoint (issue 29; docs/mcp.md "Tools"). Each mirrors a REST
 * read, needs that operation's scope, parses its arguments with the REST query schemas (the same
 * filters, defaults and errors) and calls the same service function, so a tool's data equal the
 * REST API's answer. Results are bounded by mcp/bounds.ts.
 */
import { z } from "zod";
import type { AuthContext } from "../../auth/authenticate.ts";
import type { Scope } from "../../auth/keys.ts";
import type { AppDeps } from "../../http/context.ts";
import { parseWith } from "../../http/validation.ts";
import { listLinksQuerySchema } from "../links/model.ts";
import { listLinks } from "../links/service.ts";
import { hiddenFiltersOf } from "../responses/hidden-filter.ts";
import { listResponsesQuerySchema } from "../responses/model.ts";
import { getResponse, listResponses, selectionOf, type ResponseDeps } from "../responses/service.ts";
import { statsQuerySchema } from "../stats/model.ts";
import { cachedLinkStats, type StatsCache } from "../stats/service.ts";
import { changeVersion } from "../workspaces/change-tag.ts";
import { listThemesQuerySchema, summaryQuerySchema } from "../themes/model.ts";
import { listThemes } from "../themes/service.ts";
import { linkSummary } from "../themes/summary.ts";
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_RESULT_CHARS, boundObject, boundPage, offsetOf, type Bounded } from "./bounds.ts";

type Args = Record<string, unknown>;

/** The dashboards computed for `link_stats`, per app (stats/service.ts `cachedLinkStats`). */
const statsCaches = new WeakMap<AppDeps, StatsCache>();

/** One tool: its name, the scope of the REST operation it mirrors, its arguments and what it does. */
export type McpTool = {
  name: string;
  title: string;
  /** The scope of the REST operation the tool mirrors (DESIGN §5). */
  scope: Scope;
  /** The REST operation whose data the tool returns, named in its description. */
  mirrors: string;
  description: string;
  input: z.ZodRawShape;
  run(deps: AppDeps, auth: AuthContext, args: Args): Promise<Bounded>;
};

const uuidArg = (what: string) => z.string().max(64).describe(what);
const dateArg = (what: string) => z.string().max(40).describe(`${what}: a date (2026-01-31, UTC) or a date-time with a zone`);
const paging = {
  cursor: z.string().max(64).optional().describe("next_cursor of the previous call; omit for the first page"),
  limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`Items per page (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`),
};

/** The arguments named in `keys` as REST query parameters (strings; absent ones left out). */
function queryOf(args: Args, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) if (args[k] !== undefined && args[k] !== null) out[k] = String(args[k]);
  return out;
}

/** What the list services take: how many, from where. */
function pageOf(args: Args): { limit: number; offset: number } {
  return { limit: (args.limit as number | undefined) ?? DEFAULT_LIMIT, offset: offsetOf(args.cursor as string | undefined) };
}

function responseDeps(deps: AppDeps): ResponseDeps {
  const c = deps.config;
  return { db: deps.db, publicUrl: c.publicUrl, auth: deps.auth, blobs: deps.blobs, signingSecret: deps.signingSecret, audioUrlTtlS: c.audioUrlTtlS };
}

const FILTERS = ["status", "search", "since", "until", "sentiment", "actionable", "topic", "question", "value", "value_min", "value_max", "theme", "ordering"];

/** The tools, in the order `tools/list` gives them. */
export const MCP_TOOLS: readonly McpTool[] = [
  {
    name: "list_links",
    title: "List feedback links",
    scope: "links:read",
    mirrors: "GET /api/v1/links/",
    description: "The workspace's feedback links (forms) with their questions, newest first. Use a link's uuid with the other tools.",
    input: {
      status: z.enum(["active", "paused", "all"]).optional().describe("Default all"),
      search: z.string().max(200).optional().describe("Words in the link's name or slug"),
      ordering: z.enum(["date_created", "-date_created", "name", "-name", "date_updated", "-date_updated"]).optional(),
      ...paging,
    },
    async run(deps, auth, args) {
      const q = parseWith(listLinksQuerySchema, queryOf(args, ["status", "search", "ordering"]), "arguments");
      const { limit, offset } = pageOf(args);
      const filter = {
        status: q.status,
        search: q.search,
        orderBy: q.ordering.replace("-", "") as "date_created",
        direction: q.ordering.startsWith("-") ? "desc" : "asc",
      } as const;
      const d = { db: deps.db, publicUrl: deps.config.publicUrl, auth: deps.auth, webhookAllowHosts: deps.config.webhookAllowHosts, clock: deps.clock };
      const { count, results } = await listLinks(d, auth, filter, limit, offset);
      return boundPage(results, count, offset);
    },
  },
  {
    name: "search_responses",
    title: "Search and filter responses",
    scope: "responses:read",
    mirrors: "GET /api/v1/responses/ and GET /api/v1/links/{link_uuid}/responses/",
    description:
      "Responses (one respondent's answers, with transcripts and insights), newest submission first, filtered as the REST list is: every given filter must hold.",
    input: {
      link_uuid: uuidArg("Only this link's responses (else the whole workspace)").optional(),
      status: z.enum(["completed", "started", "all"]).optional().describe("Default completed"),
      search: z.string().max(200).optional().describe("Words in the email, typed answers, transcripts, follow-ups or hidden fields (prefix match)"),
      since: dateArg("Submitted at or after").optional(),
      until: dateArg("Submitted up to (a date: the whole day)").optional(),
      sentiment: z.enum(["positive", "neutral", "negative"]).optional().describe("An answer has this sentiment"),
      actionable: z.boolean().optional().describe("true: an answer is actionable; false: none is"),
      topic: z.string().max(100).optional().describe("An answer's key_topics contains this topic"),
      theme: uuidArg("An answer belongs to this theme (uuid from list_themes)").optional(),
      question: z.string().max(64).optional().describe("Question uuid or field_key that value, value_min, value_max apply to"),
      value: z.string().max(500).optional().describe("The question's answer equals (choice, rating, yes_no, date) or contains (text) this"),
      value_min: z.number().optional(),
      value_max: z.number().optional(),
      hidden: z.record(z.string().max(64), z.string().max(500)).optional().describe("Hidden-field values that must match exactly, by field name"),
      ordering: z.enum(["submitted_at", "-submitted_at", "date_created", "-date_created"]).optional(),
      ...paging,
    },
    async run(deps, auth, args) {
      const hidden = Object.fromEntries(Object.entries((args.hidden as Record<string, string> | undefined) ?? {}).map(([k, v]) => [`hidden.${k}`, v]));
      const q = { ...parseWith(listResponsesQuerySchema, queryOf(args, FILTERS), "arguments"), hidden: hiddenFiltersOf(hidden) };
      const linkUuid = args.link_uuid as string | undefined;
      const selection = await selectionOf(deps.db, auth.workspaceUuid, linkUuid, q);
      const filter = { ...selection, orderBy: q.ordering.replace("-", "") as "submitted_at", direction: q.ordering.startsWith("-") ? "desc" : "asc" } as const;
      const { limit, offset } = pageOf(args);
      const { count, results } = await listResponses(responseDeps(deps), auth, filter, limit, offset, linkUuid !== undefined);
      return boundPage(results, count, offset);
    },
  },
  {
    name: "get_response",
    title: "Get one response",
    scope: "responses:read",
    mirrors: "GET /api/v1/responses/{response_uuid}/",
    description: "One response with every answer: typed value, transcript of a voice answer, insights (sentiment, topics, actionable, summary), theme.",
    input: { response_uuid: uuidArg("The response's uuid") },
    run: async (deps, auth, args) => boundObject(await getResponse(responseDeps(deps), auth, String(args.response_uuid))),
  },
  {
    name: "link_stats",
    title: "Link statistics",
    scope: "responses:read",
    mirrors: "GET /api/v1/links/{link_uuid}/stats/",
    description: "A link's dashboard numbers: responses started and completed, completion rate, answers over time, per-question distributions and NPS.",
    input: {
      link_uuid: uuidArg("The link's uuid"),
      since: dateArg("From").optional(),
      until: dateArg("Up to (a date: the whole day)").optional(),
      bucket: z.enum(["day", "week"]).optional().describe("over_time buckets (default day)"),
    },
    async run(deps, auth, args) {
      const q = parseWith(statsQuerySchema, queryOf(args, ["since", "until", "bucket"]), "arguments");
      // Remembered per workspace change version, as the REST route does (one dashboard, many readers).
      const cache = statsCaches.get(deps) ?? statsCaches.set(deps, new Map()).get(deps)!;
      const d = { db: deps.db };
      return boundObject(await cachedLinkStats(cache, await changeVersion(d, auth.workspaceUuid), d, auth, String(args.link_uuid), q));
    },
  },
  {
    name: "list_themes",
    title: "Themes with quotes",
    scope: "responses:read",
    mirrors: "GET /api/v1/links/{link_uuid}/themes/",
    description: "What respondents talk about in a link's open answers: themes largest first, with size, share, sentiment, weekly counts and 2–3 quotes each.",
    input: { link_uuid: uuidArg("The link's uuid"), question: uuidArg("Only the themes of this open question (uuid)").optional(), ...paging },
    async run(deps, auth, args) {
      const q = parseWith(listThemesQuerySchema, queryOf(args, ["question"]), "arguments");
      const { limit, offset } = pageOf(args);
      const { count, results } = await listThemes(themeDeps(deps), auth, String(args.link_uuid), q.question, limit, offset);
      return boundPage(results, count, offset);
    },
  },
  {
    name: "period_summary",
    title: "What changed",
    scope: "responses:read",
    mirrors: "GET /api/v1/links/{link_uuid}/summary/",
    description:
      "A link's period against the one before it: responses, sentiment, top themes with their change and a quote, new themes, and a Markdown digest.",
    input: {
      link_uuid: uuidArg("The link's uuid"),
      since: z.string().max(10).optional().describe("First day (YYYY-MM-DD, UTC); default 6 days before until"),
      until: z.string().max(10).optional().describe("Last day, inclusive (YYYY-MM-DD, UTC); default today"),
    },
    async run(deps, auth, args) {
      const q = parseWith(summaryQuerySchema, queryOf(args, ["since", "until"]), "arguments");
      return boundObject(await linkSummary(themeDeps(deps), auth, String(args.link_uuid), q));
    },
  },
];

function themeDeps(deps: AppDeps) {
  return { db: deps.db, auth: deps.auth, publicUrl: deps.config.publicUrl, signingSecret: deps.signingSecret, audioUrlTtlS: deps.config.audioUrlTtlS };
}

/** The description a client sees: what the tool does, what it mirrors, the scope, the bounds. */
export function describeTool(tool: McpTool): string {
  return `${tool.description} Same data as ${tool.mirrors}; needs the scope ${tool.scope}. Results are at most ${MAX_RESULT_CHARS} characters of JSON.`;
}
