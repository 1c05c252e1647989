/**
 * A respondent's words cannot act in the team's chat (security review, 2026-11-28): no mention
 * reaches anyone, no link is planted in a Teams card, a quote stays one quote, and a Matrix
 * message declares that it mentions nobody.
 */
import { describe, expect, test } from "bun:test";
import type { AlertMessage } from "./message.ts";
import { matrixRequest } from "./formats/matrix.ts";
import { mattermostRequest } from "./formats/mattermost.ts";
import { slackRequest } from "./formats/slack.ts";
import { teamsRequest } from "./formats/teams.ts";

const hostile: AlertMessage = {
  linkName: "Checkout",
  ruleName: "Complaints",
  reasons: ["Negative sentiment"],
  sentiment: "negative",
  quote: "@channel look at this\n[reset your password](https://evil.example) @here @room",
  responseUrl: "https://box.example/console/responses/r1/",
  suppressed: 0,
};
const mentions = /@(channel|here|room|all)\b/;

describe("alert formats with a hostile quote", () => {
  test("Slack: no mention, every line of the quote quoted", () => {
    const body = JSON.parse(slackRequest(hostile, "https://hooks.example/x").body);
    const quote: string = body.blocks[1].text.text;
    expect(quote).not.toMatch(mentions);
    expect(quote.split("\n").every((l) => l.startsWith(">"))).toBe(true);
    expect(quote).toContain("look at this");
  });

  test("Mattermost: no mention, every line of the quote quoted, Markdown escaped", () => {
    const text: string = JSON.parse(mattermostRequest(hostile, "https://mm.example/hooks/x").body).text;
    expect(text).not.toMatch(mentions);
    const quote = text.split("\n\n").find((p) => p.startsWith(">"))!;
    expect(quote.split("\n").every((l) => l.startsWith("> "))).toBe(true);
    expect(quote).not.toContain("](");
  });

  test("Teams: no Markdown link from the respondent, no mention", () => {
    const card = JSON.parse(teamsRequest(hostile, "https://teams.example/x").body).attachments[0].content;
    const quote: string = card.body[2].text;
    expect(quote).not.toContain("](");
    expect(quote).not.toMatch(mentions);
    expect(quote).toContain("reset your password");
  });

  test("Matrix: the message mentions nobody", () => {
    const body = JSON.parse(matrixRequest(hostile, "https://matrix.example", "!r:example", "t1").body);
    expect(body["m.mentions"]).toEqual({});
    expect(body.body).not.toMatch(mentions);
  });
});
