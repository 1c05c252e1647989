/**
 * @module web/console/pages/link-closing.test
 * The builder's closing and consent fields as data (link-closing.tsx): a saved link's settings
 * as the form shows them in the operator's time zone, and the form as the `settings` members
 * sent (null removes a setting; what the browser cannot read goes as typed for the API to refuse).
 */
import { expect, test } from "bun:test";

// A zone with daylight saving, set before any Date is made: the form is in local time.
process.env.TZ = "Europe/Berlin";

const { EMPTY_CLOSING, closingFormOf, closingPayloadOf } = await import("./link-closing.tsx");
type Settings = Parameters<typeof closingFormOf>[0];

const settings = (patch: Partial<Settings>): Settings => ({ close_at: null, response_limit: null, consent: null, ...patch }) as Settings;

test("a saved close time shows in local time (summer and winter), and is sent back as the same instant", () => {
  const summer = closingFormOf(settings({ close_at: "2026-07-01T10:30:00.000Z" }));
  expect(summer.closeAt).toBe("2026-07-01T12:30");
  expect(closingPayloadOf(summer).close_at).toBe("2026-07-01T10:30:00.000Z");
  const winter = closingFormOf(settings({ close_at: "2026-12-24T23:05:00.000Z" }));
  expect(winter.closeAt).toBe("2026-12-25T00:05");
  expect(closingPayloadOf(winter).close_at).toBe("2026-12-24T23:05:00.000Z");
});

test("limit and consent: read from the settings, trimmed, and defaults when absent", () => {
  const f = closingFormOf(settings({ response_limit: 250, consent: { text: "I agree.", required_before: "start" } }));
  expect(f).toEqual({ closeAt: "", limit: "250", consentText: "I agree.", consentBefore: "start" });
  expect(closingFormOf(settings({}))).toEqual(EMPTY_CLOSING);
  expect(closingPayloadOf({ ...f, limit: " 40 ", consentText: "  Recorded for research.  " })).toEqual({
    close_at: null,
    response_limit: 40,
    consent: { text: "Recorded for research.", required_before: "start" },
  });
});

test("empty fields send null (the setting is removed); a blank consent text is no consent", () => {
  expect(closingPayloadOf({ closeAt: "", limit: "  ", consentText: "   ", consentBefore: "recording" })).toEqual({
    close_at: null,
    response_limit: null,
    consent: null,
  });
});

test("what the browser cannot read is sent as typed, so the API's own error shows under its field", () => {
  const p = closingPayloadOf({ ...EMPTY_CLOSING, closeAt: "next tuesday", limit: "1.5" });
  expect(p.close_at).toBe("next tuesday");
  expect(p.response_limit).toBe(1.5);
});
