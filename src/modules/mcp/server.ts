/**
 * @module mcp/server
 * The MCP endpoint's server side (issue 29; docs/mcp.md): per HTTP request, one `McpServer` of the
 * official SDK over its Web-standard Streamable HTTP transport in stateless mode with JSON answers
 * (no session, no SSE stream: every POST carries its own credential, which the `auth` macro has
 * already checked and charged against the key's rate limit). The tools run as the caller —
 * its workspace, its scopes — and every `tools/call` is written to the audit log: `mcp.tool_called`
 * when it answered, `mcp.tool_refused` when it did not (the label names the tool and the error code;
 * `INVALID_CALL` for bad arguments or an unknown tool, refused by the SDK before any tool ran).
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AuthContext } from "../../auth/authenticate.ts";
import { AppError } from "../../errors.ts";
import type { AppDeps } from "../../http/context.ts";
import { toProblem } from "../../http/problem.ts";
import { recordByAuth } from "../audit/service.ts";
import pkg from "../../../package.json" with { type: "json" };
import { MAX_RESULT_CHARS } from "./bounds.ts";
import { MCP_TOOLS, describeTool, type McpTool } from "./tools.ts";

/** Array elements and object members one call's arguments may hold (hostile input is bounded). */
const MAX_ARGUMENT_ELEMENTS = 200;

const INSTRUCTIONS =
  "Earshot holds voice and text feedback collected through links (forms). Start with list_links; " +
  "search_responses filters a link's or the workspace's responses; get_response reads one with transcripts and insights; " +
  "link_stats, list_themes and period_summary give the numbers, the themes with quotes and what changed. " +
  `Lists are paged: pass next_cursor as cursor to continue. Every result is at most ${MAX_RESULT_CHARS} characters; a note says when something was cut.`;

/**
 * The SDK, loaded at the first MCP request: importing it costs ~140 ms of CPU (measured with
 * `bun` on this machine), which no start of a box that never serves MCP should pay.
 */
type Sdk = {
  McpServer: typeof import("@modelcontextprotocol/sdk/server/mcp.js").McpServer;
  Transport: typeof import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js").WebStandardStreamableHTTPServerTransport;
};
let sdk: Promise<Sdk> | null = null;
const loadSdk = () =>
  (sdk ??= Promise.all([import("@modelcontextprotocol/sdk/server/mcp.js"), import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js")]).then(
    ([m, t]) => ({ McpServer: m.McpServer, Transport: t.WebStandardStreamableHTTPServerTransport }),
  ));

/** One request's calls, for the audit log: which tools/call names were answered by a tool. */
type CallLog = { audited: number };

/** A tool's failure as the REST API would answer it (problem details), with nothing internal. */
function toolError(deps: AppDeps, tool: McpTool, err: unknown): { result: CallToolResult; code: string } {
  let problem: object;
  let code: string;
  if (err instanceof AppError) {
    problem = toProblem(err);
    code = err.code;
  } else {
    deps.log.error("MCP tool failed", { tool: tool.name, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    problem = toProblem(new AppError("INTERNAL", "The tool failed; the server log has the details."));
    code = "INTERNAL";
  }
  return { result: { isError: true, content: [{ type: "text", text: JSON.stringify(problem) }] }, code };
}

/** Writes one audit entry for a tool call (a failure to write is logged; the answer stands, as for the REST hook). */
async function auditCall(deps: AppDeps, auth: AuthContext, name: string, refusal: string | null): Promise<void> {
  const action = refusal ? "mcp.tool_refused" : "mcp.tool_called";
  try {
    await recordByAuth(deps.db, auth, action, { type: "mcp_tool", uuid: null, label: refusal ? `${name}: ${refusal}` : name });
  } catch (err) {
    deps.log.error("could not write an audit entry", { action, error: err instanceof Error ? err.message : String(err) });
  }
}

/** The MCP server of one request: the tools, run as `auth`. */
function createServer(McpServerClass: Sdk["McpServer"], deps: AppDeps, auth: AuthContext, calls: CallLog): McpServer {
  const server = new McpServerClass(
    { name: "earshot", title: "Earshot feedback", version: pkg.version },
    { instructions: INSTRUCTIONS, maxToolInputElements: MAX_ARGUMENT_ELEMENTS },
  );
  for (const tool of MCP_TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: describeTool(tool), inputSchema: tool.input, annotations: { readOnlyHint: true, openWorldHint: false } },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        calls.audited++;
        try {
          if (!auth.scopes.has(tool.scope))
            throw new AppError("INSUFFICIENT_SCOPE", `This credential lacks the scope "${tool.scope}" that ${tool.name} needs.`);
          const out = await tool.run(deps, auth, args);
          await auditCall(deps, auth, tool.name, null);
          const content: CallToolResult["content"] = [{ type: "text", text: out.json }];
          if (out.note) content.push({ type: "text", text: out.note });
          return { content };
        } catch (err) {
          const { result, code } = toolError(deps, tool, err);
          await auditCall(deps, auth, tool.name, code);
          return result;
        }
      },
    );
  }
  return server;
}

/** The `tools/call` names of a JSON-RPC message (one message: batches are refused before this). */
function toolCallName(message: unknown): string | null {
  if (!message || typeof message !== "object" || (message as { method?: unknown }).method !== "tools/call") return null;
  const name = (message as { params?: { name?: unknown } }).params?.name;
  return typeof name === "string" ? name.slice(0, 100) : "(no name)";
}

/**
 * Answers one MCP POST (a JSON-RPC message already parsed by the app's body parser within its
 * 1 MiB limit) for an authenticated caller.
 * @param body the parsed JSON body (one message)
 * @returns the transport's answer: JSON-RPC result or error (200), 202 for a notification, or the
 *   SDK's own 4xx for a malformed message or missing Accept/Content-Type
 */
export async function answerMcpRequest(deps: AppDeps, auth: AuthContext, request: Request, body: unknown): Promise<Response> {
  const { McpServer, Transport } = await loadSdk();
  const calls: CallLog = { audited: 0 };
  const server = createServer(McpServer, deps, auth, calls);
  const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, { parsedBody: body });
    // A call the SDK refused before any tool ran (bad arguments, unknown tool) is audited too.
    const name = toolCallName(body);
    if (name !== null && calls.audited === 0 && response.status < 300) await auditCall(deps, auth, name, "INVALID_CALL");
    return response;
  } finally {
    await server.close();
  }
}

/**
 * Refuses what the endpoint does not take before the SDK sees it: a body that is not JSON, a JSON-RPC batch (MCP
 * 2025-06-18 has none, and one request must be one charge against the rate limit), and a caller
 * that can use no tool at all.
 * @throws AppError UNSUPPORTED_MEDIA_TYPE, VALIDATION_ERROR (batch), INSUFFICIENT_SCOPE (neither links:read nor responses:read)
 */
export function assertMcpRequest(auth: AuthContext, request: Request, body: unknown): void {
  if (!/^application\/json\b/i.test(request.headers.get("content-type") ?? "")) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send one JSON-RPC message as application/json.", { headers: auth.rateHeaders });
  }
  if (Array.isArray(body)) {
    throw new AppError("VALIDATION_ERROR", "Send one JSON-RPC message per request; batches are not accepted.", {
      errors: [{ pointer: "", message: "A JSON-RPC batch." }],
    });
  }
  const scopes = [...new Set(MCP_TOOLS.map((t) => t.scope))];
  if (!scopes.some((s) => auth.scopes.has(s))) {
    throw new AppError("INSUFFICIENT_SCOPE", `The MCP tools need the scope ${scopes.join(" or ")}; this credential has neither.`, {
      headers: auth.rateHeaders,
    });
  }
}
