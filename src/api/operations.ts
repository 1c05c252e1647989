/**
 * @module api/operations
 * The catalogue of API operations for the OpenAPI document: every feature's declarations
 * (`modules/<feature>/operations.ts`), in document order. A test checks that every route the
 * server answers is listed here and the other way round.
 */
import type { Operation } from "../http/operation.ts";
import { workspaceOperations } from "../modules/workspaces/operations.ts";
import { linkOperations } from "../modules/links/operations.ts";
import { responseOperations } from "../modules/responses/operations.ts";
import { tokenOperations } from "../modules/tokens/operations.ts";
import { accountOperations } from "../modules/users/operations.ts";
import { auditOperations } from "../modules/audit/operations.ts";
import { intakeOperations } from "../modules/intake/operations.ts";
import { webhookOperations } from "../modules/webhooks/operations.ts";
import { insightsOperations } from "../modules/insights/operations.ts";
import { statsOperations } from "../modules/stats/operations.ts";
import { mediaOperations } from "../modules/media/operations.ts";
import { retentionOperations } from "../modules/retention/operations.ts";
import { themeOperations } from "../modules/themes/operations.ts";
import { invitationOperations } from "../modules/invitations/operations.ts";
import { twoFactorOperations } from "../modules/two-factor/operations.ts";
import { mailOperations } from "../modules/mail/operations.ts";
import { oidcOperations } from "../modules/oidc/operations.ts";
import { alertOperations } from "../modules/alerts/operations.ts";
import { digestOperations } from "../modules/digests/operations.ts";

export const apiOperations: Operation[] = [
  ...workspaceOperations,
  ...linkOperations,
  ...responseOperations,
  ...tokenOperations,
  ...webhookOperations,
  ...accountOperations,
  ...auditOperations,
  ...intakeOperations,
  ...insightsOperations,
  ...statsOperations,
  ...mediaOperations,
  ...retentionOperations,
  ...themeOperations,
  ...invitationOperations,
  ...twoFactorOperations,
  ...mailOperations,
  ...oidcOperations,
  ...alertOperations,
  ...digestOperations,
];
