/**
 * @module web/intake/main
 * Entry of the intake page's script (served as `/assets/intake.js`). It reads the link from
 * `<script id="earshot-link" type="application/json">`, resumes the session stored for the link,
 * then hands over to {@link IntakeFlow} (docs/intake.md, DESIGN §9). Without a stored session
 * nothing is created yet: the first answer starts the session (a page view is not a response).
 * A kiosk link (issue 29) never resumes nor remembers a session, and starts over in place
 * ({@link KioskMode}).
 */
import { ApiError, createIntakeApi, type IntakeApi } from "./api.ts";
import { IntakeFlow } from "./flow.ts";
import { linkText, setContentLanguage } from "./content.ts";
import { direction, LANGUAGE_NAMES, language, setLanguage, t, type Catalog } from "./i18n.ts";
import { respondentMessage } from "./messages.ts";
import { clearSessionId, loadSessionId, saveSessionId } from "./session-store.ts";
import { IntakeState } from "./state.ts";
import { createPreviewApi, isPreview } from "./preview.ts";
import { readHiddenValues } from "./hidden.ts";
import type { EmbeddedLinkData, PublicLink, Session, SubmitResult } from "./types.ts";
import { showMessage, showThankYou } from "./views.ts";
import { askConsent, consentShown } from "./consent.ts";
import type { KioskMode } from "./kiosk.ts";
import { h, uniqueId } from "./dom.ts";
import { keepMicrophoneOpen, releaseKeptMicrophone } from "./recorder.ts";
import { stopSpeaking } from "./speech.ts";

/** The respondent's choice of language, read by the server when it renders the page. */
const LANGUAGE_COOKIE = "earshot_lang";

/** Draws the screen on show again in the current language (set by each screen). */
let redraw: () => void = () => {};
/** Kiosk mode, while the link has it and the device has not left it (issue 29). */
let kiosk: KioskMode | null = null;
/** The form on screen, disposed when a kiosk starts over (a recording in progress stops). */
let currentFlow: IntakeFlow | null = null;

function readEmbeddedData(): EmbeddedLinkData | null {
  const el = document.getElementById("earshot-link");
  if (!el?.textContent) return null;
  try {
    const data = JSON.parse(el.textContent) as EmbeddedLinkData;
    return data && typeof data.api_base === "string" && data.link ? data : null;
  } catch {
    return null;
  }
}

/** The session stored under `storeKey` (the link's uuid, or uuid:invitation), or null when there is none (yet) to resume. */
async function resume(api: IntakeApi, storeKey: string): Promise<Session | null> {
  const stored = loadSessionId(storeKey);
  if (!stored) return null;
  try {
    return await api.getSession(stored);
  } catch (err) {
    // A session that no longer exists (erased or purged response): the next answer starts anew.
    if (!(err instanceof ApiError && err.status === 404)) throw err;
    clearSessionId(storeKey);
    return null;
  }
}

/** The API's default `thankYouMessage` (DESIGN §6): shown in the page's language instead. */
const API_DEFAULT_THANK_YOU = "Thanks for your response!";

/** The operator's thank-you text in the current language, else the catalog's default. */
function thankYouText(link: PublicLink, result?: SubmitResult): string {
  const translated = linkText(link.translations, language(), "thankYouMessage");
  const own = result?.thank_you_message || link.settings.thankYouMessage;
  return translated || (own && own !== API_DEFAULT_THANK_YOU ? own : t("thanks.default"));
}

/**
 * The API, plus `earshot:started` / `earshot:submitted` events on `document` once a session
 * started / was submitted: embed-bridge.ts (loaded only where a site may frame the page, issue 29)
 * relays them to an allowed parent.
 */
function withSignals(api: IntakeApi): IntakeApi {
  const signal = <T>(type: string, value: T) => (document.dispatchEvent(new Event(type)), value);
  return {
    ...api,
    startSession: (consent) => api.startSession(consent).then((s) => signal("earshot:started", s)),
    submit: (id) => api.submit(id).then((r) => signal("earshot:submitted", r)),
  };
}

function show(screen: () => void): void {
  redraw = screen;
  screen();
}

async function boot(root: HTMLElement, data: EmbeddedLinkData): Promise<void> {
  // `?preview=1` (the console's "Preview"): the same flow against an API that records nothing.
  const preview = isPreview();
  const link = preview ? { ...data.link, settings: { ...data.link.settings, live_transcription: false } } : data.link;
  // Read once at load; a reload reads the same URL again (issue 25).
  const hidden = readHiddenValues(location.search, link.settings.hidden_fields ?? []);
  // A personal URL (`?inv=`, DESIGN §13): its session is remembered apart from the link's open one.
  const invitation = new URLSearchParams(location.search).get("inv");
  const storeKey = invitation ? `${link.uuid}:${invitation.split(".")[0]}` : link.uuid;
  const api = withSignals(preview ? createPreviewApi(link) : createIntakeApi(data.api_base, invitation, hidden));
  const startAgain = () => {
    clearSessionId(storeKey);
    void boot(root, data);
  };
  let session: Session | null;
  try {
    // A kiosk never hands one respondent's session to the next (the server refuses it too).
    session = preview || kiosk?.isOn ? null : await resume(api, storeKey);
  } catch (err) {
    if (err instanceof ApiError && err.code === "LINK_PAUSED") {
      return show(() => showMessage(root, t("screen.paused.title"), t("screen.paused.text")));
    }
    return show(() =>
      showMessage(root, t("screen.error.title"), t("screen.error.loadFailed", { reason: respondentMessage(err) }), {
        label: t("screen.tryAgain"),
        run: () => void boot(root, data),
      }),
    );
  }
  if (session?.status === "completed") {
    // A personal link is good for one response: no "start again" after it.
    return show(() => showThankYou(root, thankYouText(link), null, invitation ? undefined : startAgain));
  }
  // A closed link takes no new session; one started before it closed still finishes (docs/intake.md "Closing").
  if (link.is_closed && !session && !preview) {
    return show(() => showMessage(root, t("screen.closed.title"), t("screen.closed.text")));
  }
  const state = new IntakeState(
    api,
    link,
    session?.session_id ?? null,
    session?.answers,
    (id) => preview || kiosk?.isOn || saveSessionId(storeKey, id),
    hidden,
  );
  state.hasConsent = Boolean(session?.consent);
  // `required_before: "start"`: the respondent agrees before the first answer (docs/intake.md "Consent").
  const shown = link.settings.consent?.required_before === "start" && !session ? consentShown(link) : null;
  if (shown) {
    root.replaceChildren();
    if (!(await askConsent(root, shown.text))) return show(() => showMessage(root, t("consent.title"), t("consent.declined.start")));
    state.startConsent = { language: shown.language };
  }
  const flow = new IntakeFlow(root, state, api, (result) => {
    const sentAt = new Date();
    if (kiosk?.isOn) {
      // No redirect and no "send another": the kiosk starts over by itself for the next person.
      const thanks = () => showThankYou(root, thankYouText(link, result), null, undefined, sentAt);
      show(thanks);
      const section = root.querySelector<HTMLElement>(".thanks");
      if (section) kiosk.thanked(section);
      return;
    }
    show(() =>
      showThankYou(root, thankYouText(link, result), result.redirect_url ?? link.settings.redirectUrl ?? null, invitation ? undefined : startAgain, sentAt),
    );
  });
  redraw = () => flow.relabel();
  currentFlow = flow;
  flow.start();
}

/** `<html lang dir>`, the page title and header in the current language. */
function applyLanguage(data: EmbeddedLinkData | null): void {
  const lang = language();
  document.documentElement.lang = lang;
  document.documentElement.dir = direction(lang);
  const name = linkText(data?.link.translations, lang, "name") || data?.link.name;
  const description = linkText(data?.link.translations, lang, "description") || data?.link.settings.description;
  const heading = document.querySelector(".page-header h1");
  if (name && heading) {
    heading.textContent = name;
    document.title = name;
  }
  const descriptionEl = document.querySelector(".page-header .description");
  if (description && descriptionEl) descriptionEl.textContent = description;
  const footer = document.querySelector(".page-footer");
  if (footer) footer.textContent = t("page.footer");
}

/**
 * Loads another language's catalog, remembers the choice (cookie, so the server renders the
 * next visit in it) and redraws the screen on show; answers stay in the state.
 */
async function switchLanguage(lang: string, data: EmbeddedLinkData | null, label: HTMLElement): Promise<void> {
  const response = await fetch(`/assets/intake/i18n/${encodeURIComponent(lang)}.json`);
  if (!response.ok) return;
  setLanguage(lang, (await response.json()) as Catalog);
  setContentLanguage(null); // the respondent chose: the operator's texts follow the page's language
  document.cookie = `${LANGUAGE_COOKIE}=${lang}; path=/; max-age=31536000; samesite=lax`;
  applyLanguage(data);
  label.textContent = t("page.language");
  redraw();
}

/** Kiosk mode starting over: the page's first language again (the last respondent may have chosen another). */
function restoreLanguage(data: EmbeddedLinkData): void {
  const first = data.language ?? "en";
  if (language() === first || !data.messages) return;
  setLanguage(first, data.messages);
  setContentLanguage(data.content_language ?? null);
  applyLanguage(data);
  const select = document.getElementById("earshot-language") as HTMLSelectElement | null;
  if (select) select.value = first;
  const label = document.querySelector<HTMLElement>('label[for="earshot-language"]');
  if (label) label.textContent = t("page.language");
}

/** The labelled language select at the top of the page. */
function languageSwitcher(data: EmbeddedLinkData | null, available: string[]): HTMLElement {
  const wrap = document.createElement("div");
  wrap.className = "language-switch";
  const label = document.createElement("label");
  label.htmlFor = "earshot-language";
  label.textContent = t("page.language");
  const select = document.createElement("select");
  select.id = "earshot-language";
  select.autocomplete = "off";
  for (const lang of available) {
    const option = new Option(LANGUAGE_NAMES[lang] ?? lang, lang, false, lang === language());
    option.lang = lang;
    option.dir = direction(lang);
    select.append(option);
  }
  select.addEventListener("change", () => void switchLanguage(select.value, data, label));
  wrap.append(label, select);
  return wrap;
}

const appRoot = document.getElementById("earshot-app");
const embedded = readEmbeddedData();
if (embedded?.messages) setLanguage(embedded.language ?? "en", embedded.messages);
setContentLanguage(embedded?.content_language ?? null);
const available = embedded?.languages ?? [];
if (available.length > 1) document.querySelector(".page-header")?.prepend(languageSwitcher(embedded, available));
if (appRoot && embedded) {
  applyLanguage(embedded);
  if (isPreview()) {
    const note = document.createElement("p");
    note.className = "preview-note";
    note.setAttribute("role", "note");
    note.textContent = t("page.preview");
    document.querySelector(".page-header")?.append(note);
  }
  const kioskSettings = isPreview() ? null : embedded.link.settings.kiosk;
  if (kioskSettings?.enabled) {
    // Kiosk mode is its own chunk (loaded by kiosk links only: the first load's budget).
    void import("./kiosk.ts")
      .then(({ KioskMode, provideKit }) => {
        provideKit({ h, uniqueId, t, keepMicrophoneOpen, releaseKeptMicrophone, stopSpeaking });
        kiosk = new KioskMode(kioskSettings, embedded.api_base, appRoot, () => {
          currentFlow?.dispose();
          currentFlow = null;
          restoreLanguage(embedded);
          void boot(appRoot, embedded);
        });
      })
      .catch(() => show(() => showMessage(appRoot, t("screen.error.title"), t("screen.error.missingForm"))))
      .then(() => boot(appRoot, embedded));
  } else {
    void boot(appRoot, embedded);
  }
} else if (appRoot) {
  show(() => showMessage(appRoot, t("screen.error.title"), t("screen.error.missingForm")));
}
