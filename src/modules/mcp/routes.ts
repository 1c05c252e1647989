/**
 * @module mcp/routes
 * `POST /api/mcp/` (issue 29; docs/mcp.md): the Model Context Protocol endpoint, Streamable HTTP,
 * stateless. Authenticated by the `auth` macro exactly as the REST API (Bearer key or console
 * session; 401/403/429 problem+json, RateLimit-* headers, the key's per-minute limit, re-check
 * before responding); each tool then checks its own scope. GET (a server-sent event stream) and
 * DELETE (ending a session) are not offered: stateless, the app answers them 405 with `Allow: POST`.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../../http/context.ts";
import { authPlugin } from "../../http/auth-plugin.ts";
import { answerMcpRequest, assertMcpRequest } from "./server.ts";

/** The endpoint's path. */
export const MCP_PATH = "/api/mcp/";

/** The MCP route. */
export function mcpRoutes(deps: AppDeps) {
  return new Elysia({ name: "mcp" }).use(authPlugin(deps)).post(
    MCP_PATH,
    ({ request, body, auth }) => {
      assertMcpRequest(auth, request, body);
      return answerMcpRequest(deps, auth, request, body);
    },
    { auth: { scope: null } },
  );
}
