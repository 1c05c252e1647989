/**
 * @module alerts/formats
 * The request each destination kind receives for an alert (one file per destination).
 */
import type { AlertRequest } from "../../../outbox/alert-request.ts";
import type { AlertMessage } from "../message.ts";
import type { DestinationKind } from "../model.ts";
import { matrixRequest } from "./matrix.ts";
import { mattermostRequest } from "./mattermost.ts";
import { ntfyRequest } from "./ntfy.ts";
import { slackRequest } from "./slack.ts";
import { teamsRequest } from "./teams.ts";
import { webhookRequest } from "./webhook.ts";

/** Where an alert goes; `bearer`: an ntfy topic that takes the rule's access token. */
export type Destination = { kind: DestinationKind; url: string; room: string | null; bearer?: boolean };

/**
 * The exact request `dest` receives for `m`.
 * @param eventId the outbox event id (Matrix's transaction id)
 */
export function requestFor(dest: Destination, m: AlertMessage, eventId: string): AlertRequest {
  switch (dest.kind) {
    case "slack":
      return slackRequest(m, dest.url);
    case "teams":
      return teamsRequest(m, dest.url);
    case "mattermost":
      return mattermostRequest(m, dest.url);
    case "matrix":
      return matrixRequest(m, dest.url, dest.room ?? "", eventId);
    case "ntfy":
      return ntfyRequest(m, dest.url, dest.bearer === true);
    case "webhook":
      return webhookRequest(m, dest.url);
    case "email":
      // Email goes as a `mail` job (fire.ts), never through the outbox.
      throw new Error("An email destination has no HTTP request.");
  }
}
