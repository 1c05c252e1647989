/**
 * @module web/console/pages/link-form.test
 * The builder's "Link" card as data (link-form.ts): a saved link's form, the request body made
 * from it (empty texts as null, the slug only when typed, every option, hidden fields, closing),
 * checked against the server's own settings schema; and moving a question (question-list.tsx).
 */
import { describe, expect, test } from "bun:test";
import { createLinkSchema, type Link } from "../../../src/modules/links/model.ts";
import { EMPTY_LINK_FORM, LINK_OPTIONS, hiddenNames, linkBodyOf, linkFormOf } from "./link-form.ts";
import { blankDraft } from "./question-draft.ts";
import { moved } from "./question-list.tsx";

const link = (settings: Partial<Link["settings"]>): Link =>
  ({
    uuid: "0b6f0c1e-1111-4222-8333-944455556666",
    name: "Product feedback",
    slug: "product-feedback",
    status: "paused",
    questions: [],
    settings: {
      description: null,
      thankYouMessage: "Thanks for your response!",
      redirectUrl: null,
      tts_enabled: false,
      live_transcription: false,
      language: null,
      redact_pii: false,
      access: "open",
      close_at: null,
      response_limit: null,
      consent: null,
      hidden_fields: [],
      ...settings,
    },
  }) as unknown as Link;

describe("link form", () => {
  test("a saved link's settings fill the form; each option reads its own setting", () => {
    const f = linkFormOf(
      link({ description: "Tell us", tts_enabled: true, redact_pii: true, access: "invitation", hidden_fields: ["order_id", "plan"], response_limit: 9 }),
    );
    expect(f).toMatchObject({
      name: "Product feedback",
      slug: "product-feedback",
      description: "Tell us",
      redirectUrl: "",
      hidden: "order_id, plan",
      status: "paused",
    });
    expect(f.options).toEqual({ tts: true, live: false, redact: true, invitationOnly: true });
    expect(f.closing.limit).toBe("9");
    expect(linkFormOf(link({ live_transcription: true })).options).toEqual({ tts: false, live: true, redact: false, invitationOnly: false });
  });

  test("the body: trimmed texts, empty ones as null, the slug only when typed, each option written, and the server's schema accepts it", () => {
    const body = linkBodyOf(
      {
        ...EMPTY_LINK_FORM,
        name: "Survey",
        slug: "  ",
        description: "  Hello  ",
        redirectUrl: " https://example.com/done ",
        hidden: "order_id plan,, source",
        options: { tts: false, live: true, redact: true, invitationOnly: true },
        closing: { ...EMPTY_LINK_FORM.closing, limit: "5" },
      },
      [{ ...blankDraft("text"), prompt: "Why?", field_key: "why" }],
    );
    expect("slug" in body).toBe(false);
    expect(body.settings).toEqual({
      description: "Hello",
      thankYouMessage: null,
      redirectUrl: "https://example.com/done",
      tts_enabled: false,
      live_transcription: true,
      redact_pii: true,
      access: "invitation",
      hidden_fields: ["order_id", "plan", "source"],
      close_at: null,
      response_limit: 5,
      consent: null,
    });
    expect(body.questions.map((q) => q.field_key)).toEqual(["why"]);
    expect(createLinkSchema.safeParse(body).success).toBe(true);
    const off = linkBodyOf({ ...EMPTY_LINK_FORM, name: "x", slug: " my-link " }, []);
    expect(off.slug).toBe("my-link");
    // An option turned off is sent off (a saved link goes back to open access, no masking …).
    expect(off.settings).toMatchObject({ tts_enabled: false, live_transcription: false, redact_pii: false, access: "open" });
  });

  test("every option round-trips: form of a link with it on → body → the same setting", () => {
    for (const o of LINK_OPTIONS) {
      const on = o.write(true);
      const form = linkFormOf(link(on as Partial<Link["settings"]>));
      expect({ key: o.key, on: form.options[o.key] }).toEqual({ key: o.key, on: true });
      expect(linkBodyOf(form, []).settings).toMatchObject(on);
    }
  });

  test("hidden field names split on commas and spaces", () => {
    expect(hiddenNames(" a, b  c,,d ")).toEqual(["a", "b", "c", "d"]);
    expect(hiddenNames("")).toEqual([]);
  });
});

test("moving a question: to its new place, or not at all past either end", () => {
  expect(moved(["a", "b", "c", "d"], 0, 2)).toEqual(["b", "c", "a", "d"]);
  expect(moved(["a", "b", "c", "d"], 3, 1)).toEqual(["a", "d", "b", "c"]);
  const same = ["a", "b"];
  expect(moved(same, 0, -1)).toBe(same);
  expect(moved(same, 1, 2)).toBe(same);
});
