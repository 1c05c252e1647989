/**
 * Multilingual content and `settings.language` (issue 17, docs/api.md "Translations"): links and
 * questions carry translations per BCP 47 language, every translated key must exist in the source
 * (400 with pointers), language tags are validated and stored canonically, PATCH replaces the
 * link's translations and keeps a question's when it does not send them, and the public link
 * carries them to the intake page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApi, type TestApi } from "../../../test/helpers/api.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

const CARDS = [
  { id: "sea", label: "Sea", media_url: "https://cdn.example/sea.png" },
  { id: "forest", label: "Forest", media_url: "https://cdn.example/forest.png" },
];

function body(extra: Record<string, unknown> = {}) {
  return {
    name: "Feedback",
    settings: { description: "Two questions.", language: "DE-at" },
    translations: { DE: { name: "Rückmeldung", description: "Zwei Fragen.", thankYouMessage: "Danke!" } },
    questions: [
      {
        prompt: "Which plan?",
        type: "multiple_choice",
        configuration: { options: ["Free", "Team"] },
        translations: { de: { prompt: "Welcher Tarif?", options: { Free: "Kostenlos", Team: "Team" } } },
      },
      {
        prompt: "Pick a theme",
        type: "image_choice",
        configuration: { cards: CARDS },
        translations: { "pt-br": { prompt: "Escolha um tema", cards: { sea: "Mar" } } },
      },
    ],
    ...extra,
  };
}

describe("link translations and settings.language", () => {
  test("stored with canonical language tags, returned on the link and on the public link", async () => {
    const r = await api.call("POST", "/api/v1/links/", { body: body() });
    expect(r.status).toBe(201);
    expect(r.json.settings.language).toBe("de-AT");
    expect(r.json.translations).toEqual({ de: { name: "Rückmeldung", description: "Zwei Fragen.", thankYouMessage: "Danke!" } });
    expect(r.json.questions[0].translations).toEqual({ de: { prompt: "Welcher Tarif?", options: { Free: "Kostenlos", Team: "Team" } } });
    expect(r.json.questions[1].translations).toEqual({ "pt-BR": { prompt: "Escolha um tema", cards: { sea: "Mar" } } });
    const pub = (await api.call("GET", `/api/v1/intake/${api.ws.workspace_slug}/${r.json.slug}/`, { key: null })).json.link;
    expect(pub.translations.de.name).toBe("Rückmeldung");
    expect(pub.questions[1].translations["pt-BR"].cards).toEqual({ sea: "Mar" });
  });

  test("every translated key must exist in the source: 400 with one pointer per problem", async () => {
    const r = await api.call("POST", "/api/v1/links/", {
      body: body({
        settings: {},
        translations: { de: { description: "Keine Quelle." }, german: { name: "x" } },
        questions: [
          {
            prompt: "Which plan?",
            type: "multiple_choice",
            configuration: { options: ["Free", "Team"] },
            translations: { de: { options: { Enterprise: "Unternehmen" } } },
          },
          { prompt: "Pick a theme", type: "image_choice", configuration: { cards: CARDS }, translations: { fr: { cards: { desert: "Désert" } } } },
          { prompt: "Why?", type: "text", translations: { de: { options: { A: "B" } } } },
        ],
      }),
    });
    expect([r.status, r.json.code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(r.json.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      "/questions/0/translations/de/options/Enterprise",
      "/questions/1/translations/fr/cards/desert",
      "/questions/2/translations/de/options",
    ]);
    const link = await api.call("POST", "/api/v1/links/", {
      body: body({ settings: {}, questions: [], translations: { de: { description: "Keine Quelle." }, german: { name: "x" } } }),
    });
    expect(link.status).toBe(400);
    expect(link.json.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(["/translations/de/description", "/translations/german"]);
  });

  test("a malformed settings.language is refused; null clears it", async () => {
    for (const language of ["german", "e", "en_US", "de-"]) {
      const r = await api.call("POST", "/api/v1/links/", { body: { name: "Bad tag", settings: { language } } });
      expect([language, r.status, r.json.errors?.[0]?.pointer]).toEqual([language, 400, "/settings/language"]);
    }
    const ok = (await api.call("POST", "/api/v1/links/", { body: { name: "Tag", settings: { language: "sr-Latn" } } })).json;
    expect(ok.settings.language).toBe("sr-Latn");
    const cleared = await api.call("PATCH", `/api/v1/links/${ok.uuid}/`, { body: { settings: { language: null } } });
    expect(cleared.json.settings.language).toBeNull();
  });

  test("PATCH replaces the link's translations, keeps a question's unless sent, and re-checks against the source", async () => {
    const link = (await api.call("POST", "/api/v1/links/", { body: body() })).json;
    const q0 = link.questions[0];
    const patched = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, {
      body: { translations: { fr: { name: "Avis" } }, questions: [{ uuid: q0.uuid, prompt: "Which plan do you use?" }] },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.translations).toEqual({ fr: { name: "Avis" } });
    expect(patched.json.questions).toHaveLength(1);
    expect(patched.json.questions[0].translations.de.prompt).toBe("Welcher Tarif?");
    // Removing an option that a translation still names is refused at the translation's pointer.
    const dropped = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { questions: [{ uuid: q0.uuid, configuration: { options: ["Team"] } }] } });
    expect([dropped.status, dropped.json.errors[0].pointer]).toEqual([400, "/questions/0/translations/de/options/Free"]);
    // So is removing the description a translation translates.
    const fr = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { translations: { fr: { description: "Deux questions." } } } });
    expect(fr.status).toBe(200);
    const noDescription = await api.call("PATCH", `/api/v1/links/${link.uuid}/`, { body: { settings: { description: null } } });
    expect([noDescription.status, noDescription.json.errors[0].pointer]).toEqual([400, "/translations/fr/description"]);
  });
});
