/**
 * @module webhooks/operations
 * OpenAPI catalogue entries of the webhook endpoints (filled in with the webhook routes).
 */
import type { Operation } from "../../http/openapi.ts";

export const webhookOperations: Operation[] = [];
