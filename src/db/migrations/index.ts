/**
 * @module db/migrations
 * Static migration index: imported, not read from disk, so migrations survive `bun build --compile`.
 * Add new migrations at the end with a later timestamp; never edit a shipped one.
 */
import type { Migration } from "kysely";
import * as initial from "./2026-11-21T0000-initial.ts";
import * as webhookLogIndexes from "./2026-11-24T0000-webhook-log-indexes.ts";
import * as operatorAccounts from "./2026-11-25T0000-operator-accounts.ts";
import * as outboxEventResponse from "./2026-11-25T0300-outbox-event-response.ts";
import * as webhookDeliveriesDueIndex from "./2026-11-25T0300-webhook-deliveries-due-index.ts";
import * as insightCorrections from "./2026-11-25T0500-insight-corrections.ts";
import * as responseStats from "./2026-11-26T0100-response-stats.ts";
import * as answerInsightIndexes from "./2026-11-26T0101-answer-insight-indexes.ts";
import * as answerHoldsTopicsIndexes from "./2026-11-26T0102-answer-holds-topics-indexes.ts";
import * as answerLanguage from "./2026-11-26T0200-answer-language.ts";
import * as translations from "./2026-11-26T0201-translations.ts";
import * as tokenCreator from "./2026-11-27T0100-token-creator.ts";
import * as answersFtsSecureDelete from "./2026-11-27T0200-answers-fts-secure-delete.ts";
import * as postgresBlobs from "./2026-11-28T0100-postgres-blobs.ts";
import * as rateLimitWindows from "./2026-11-28T0200-rate-limit-windows.ts";
import * as loginFailures from "./2026-11-28T0201-login-failures.ts";
import * as answersFtsByRowid from "./2026-11-28T0300-answers-fts-by-rowid.ts";
import * as definitionVersion from "./2026-12-01T0000-definition-version.ts";
import * as themes from "./2026-12-02T0000-themes.ts";
import * as searchFollowUps from "./2026-12-02T0100-search-follow-ups.ts";
import * as mediaImages from "./2026-12-02T0200-media-images.ts";
import * as answerTranslation from "./2026-12-03T0000-answer-translation.ts";
import * as hiddenFields from "./2026-12-03T0100-hidden-fields.ts";
import * as themeCentresVersion from "./2026-12-03T0100-theme-centres-version.ts";
import * as responseConsent from "./2026-12-03T0200-response-consent.ts";
import * as invitations from "./2026-12-03T0300-invitations.ts";
import * as retention from "./2026-12-03T0500-retention.ts";
import * as jobsClaimIndexes from "./2026-12-03T0600-jobs-claim-indexes.ts";
import * as followUpVectors from "./2026-12-03T0601-follow-up-vectors.ts";
import * as jobUniqueKey from "./2026-12-04T0000-job-unique-key.ts";
import * as twoFactor from "./2026-12-04T0000-two-factor.ts";
import * as embedOrigins from "./2026-12-04T0100-embed-origins.ts";
import * as mailDelivery from "./2026-12-04T0100-mail-delivery.ts";
import * as alertRules from "./2026-12-05T0000-alert-rules.ts";
import * as memberDigest from "./2026-12-05T0000-member-digest.ts";
import * as alertRuleLangToken from "./2026-12-05T0300-alert-rule-lang-token.ts";
import * as workspaceOidc from "./2026-12-06T0000-workspace-oidc.ts";

export const migrations: Record<string, Migration> = {
  "2026-11-21T0000-initial": initial,
  "2026-11-24T0000-webhook-log-indexes": webhookLogIndexes,
  "2026-11-25T0000-operator-accounts": operatorAccounts,
  "2026-11-25T0300-outbox-event-response": outboxEventResponse,
  "2026-11-25T0300-webhook-deliveries-due-index": webhookDeliveriesDueIndex,
  "2026-11-25T0500-insight-corrections": insightCorrections,
  "2026-11-26T0100-response-stats": responseStats,
  "2026-11-26T0101-answer-insight-indexes": answerInsightIndexes,
  "2026-11-26T0102-answer-holds-topics-indexes": answerHoldsTopicsIndexes,
  "2026-11-26T0200-answer-language": answerLanguage,
  "2026-11-26T0201-translations": translations,
  "2026-11-27T0100-token-creator": tokenCreator,
  "2026-11-27T0200-answers-fts-secure-delete": answersFtsSecureDelete,
  "2026-11-28T0100-postgres-blobs": postgresBlobs,
  "2026-11-28T0200-rate-limit-windows": rateLimitWindows,
  "2026-11-28T0201-login-failures": loginFailures,
  "2026-11-28T0300-answers-fts-by-rowid": answersFtsByRowid,
  "2026-12-01T0000-definition-version": definitionVersion,
  "2026-12-02T0000-themes": themes,
  "2026-12-02T0100-search-follow-ups": searchFollowUps,
  "2026-12-02T0200-media-images": mediaImages,
  "2026-12-03T0000-answer-translation": answerTranslation,
  "2026-12-03T0100-hidden-fields": hiddenFields,
  "2026-12-03T0100-theme-centres-version": themeCentresVersion,
  "2026-12-03T0200-response-consent": responseConsent,
  "2026-12-03T0300-invitations": invitations,
  "2026-12-03T0500-retention": retention,
  "2026-12-03T0600-jobs-claim-indexes": jobsClaimIndexes,
  "2026-12-03T0601-follow-up-vectors": followUpVectors,
  "2026-12-04T0000-job-unique-key": jobUniqueKey,
  "2026-12-04T0000-two-factor": twoFactor,
  "2026-12-04T0100-embed-origins": embedOrigins,
  "2026-12-04T0100-mail-delivery": mailDelivery,
  "2026-12-05T0000-alert-rules": alertRules,
  "2026-12-05T0000-member-digest": memberDigest,
  "2026-12-05T0300-alert-rule-lang-token": alertRuleLangToken,
  "2026-12-06T0000-workspace-oidc": workspaceOidc,
};
