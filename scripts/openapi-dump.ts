/**
 * Prints the OpenAPI document the server serves, for a fixed server URL and version, so two
 * commits' documents can be compared with `diff` (issue 23: the re-layering must leave it unchanged).
 *   npx bun scripts/openapi-dump.ts > /tmp/openapi-new.json
 */
import { buildOpenApiDocument } from "../src/api/openapi.ts";
import { apiOperations } from "../src/api/operations.ts";

console.log(JSON.stringify(buildOpenApiDocument(apiOperations, "http://localhost:3000/api/v1", "0.0.0"), null, 2));
