/**
 * @module web/intake/kiosk
 * Kiosk mode of the intake page (issue 29; docs/intake.md "Kiosk mode"): one device serves
 * respondent after respondent. The page starts over (in place, never by reloading, so the one
 * microphone grant stays) a few seconds after a submit and after `idle_timeout_s` without input,
 * with a "Still there?" countdown first; each start clears what the page kept in the browser. A
 * quiet toolbar at the bottom offers full screen and leaving kiosk mode, behind the link's exit PIN when it has one
 * (checked by the server: the page never holds the PIN).
 */
import type * as Dom from "./dom.ts";
import type * as I18n from "./i18n.ts";
import type * as Recorder from "./recorder.ts";
import type * as Speech from "./speech.ts";
import { askExitPin, provideToExit } from "./kiosk-exit.ts";
import type { KioskSettings } from "../../src/modules/links/model.ts";

/**
 * What kiosk mode uses of the page's own modules, handed over by main.ts. Kiosk mode is a chunk
 * that only kiosk links load (the page's first-load budget); importing these modules here would
 * make the bundler move them into a chunk of their own, one more request on every page's first
 * load. Handing them over keeps one instance of each (the recorder's kept stream, the language).
 */
export interface KioskKit {
  h: typeof Dom.h;
  uniqueId: typeof Dom.uniqueId;
  t: typeof I18n.t;
  keepMicrophoneOpen: typeof Recorder.keepMicrophoneOpen;
  releaseKeptMicrophone: typeof Recorder.releaseKeptMicrophone;
  stopSpeaking: typeof Speech.stopSpeaking;
}

let h: KioskKit["h"];
let uniqueId: KioskKit["uniqueId"];
let t: KioskKit["t"];
let keepMicrophoneOpen: KioskKit["keepMicrophoneOpen"];
let releaseKeptMicrophone: KioskKit["releaseKeptMicrophone"];
let stopSpeaking: KioskKit["stopSpeaking"];

/** Hands kiosk mode the page's modules; call once, before constructing {@link KioskMode}. */
export function provideKit(kit: KioskKit): void {
  ({ h, uniqueId, t, keepMicrophoneOpen, releaseKeptMicrophone, stopSpeaking } = kit);
  provideToExit(kit);
}

/** Seconds the thank-you screen stays before the page starts over for the next person. */
export const KIOSK_THANKS_S = 8;
/** The longest "Still there?" countdown, in seconds (shorter timeouts count down a third of theirs). */
const MAX_COUNTDOWN_S = 15;
/** Input events that mean someone is using the page. */
const ACTIVITY_EVENTS = ["pointerdown", "keydown", "input", "wheel", "touchstart"] as const;

/**
 * Removes what the intake page kept in this browser: its `earshot:` entries in local and session
 * storage (the resume token, web/intake/session-store.ts) and the language cookie.
 */
export function clearBrowserTraces(): void {
  for (const storage of [window.localStorage, window.sessionStorage]) {
    try {
      for (const key of Object.keys(storage)) if (key.startsWith("earshot:")) storage.removeItem(key);
    } catch {
      // Storage disabled: nothing was kept.
    }
  }
  document.cookie = "earshot_lang=; path=/; max-age=0; samesite=lax";
}

/** Whether a recording or a save is under way (someone is talking, not idle). */
function isWorking(root: HTMLElement): boolean {
  return (
    root.getAttribute("aria-busy") === "true" ||
    root.querySelector('.record-widget:is([data-phase="recording"], [data-phase="requesting"], [data-phase="uploading"])') !== null
  );
}

/** Kiosk mode on one page: the resets, the idle countdown, full screen and leaving. */
export class KioskMode {
  private lastInputAt = Date.now();
  /** Someone touched the page since it last started over (an untouched page never counts down). */
  private isDirty = false;
  private isThanking = false;
  private isActive = true;
  private readonly ticker: ReturnType<typeof setInterval>;
  private idleDialog: HTMLDialogElement | null = null;
  private readonly toolbar: HTMLElement;
  private readonly fullscreenButton: HTMLButtonElement;
  private readonly onActivity = (e: Event) => {
    if (this.idleDialog?.contains(e.target as Node)) return;
    this.lastInputAt = Date.now();
    this.isDirty = true;
  };

  /**
   * Turns the page into a kiosk: no traces left from before, the microphone kept open between
   * respondents, the toolbar at the bottom of `.page`.
   * @param settings the link's `settings.kiosk`
   * @param apiBase the intake API base (`/api/v1/intake/{ws}/{slug}/`), for the exit PIN
   * @param root the form's root (its subtree gets `autocomplete="off"`)
   * @param startOver draws the first question for a new respondent (no reload)
   */
  constructor(
    private readonly settings: KioskSettings,
    private readonly apiBase: string,
    private readonly root: HTMLElement,
    private readonly startOver: () => void,
  ) {
    clearBrowserTraces();
    keepMicrophoneOpen();
    document.documentElement.classList.add("kiosk");
    for (const type of ACTIVITY_EVENTS) document.addEventListener(type, this.onActivity, { capture: true, passive: true });
    // The browser must not offer one respondent's typing to the next.
    new MutationObserver(() => {
      for (const el of root.querySelectorAll("input:not([autocomplete=off]), textarea:not([autocomplete=off])")) el.setAttribute("autocomplete", "off");
    }).observe(root, { childList: true, subtree: true });
    this.fullscreenButton = h("button", { type: "button", class: "kiosk-button", onclick: () => void this.enterFullscreen() }, t("kiosk.fullscreen"));
    this.toolbar = h(
      "div",
      { class: "kiosk-toolbar" },
      this.fullscreenButton,
      h("button", { type: "button", class: "kiosk-button", onclick: () => this.askToLeave() }, t("kiosk.leave")),
    );
    const syncFullscreen = () => (this.fullscreenButton.hidden = Boolean(document.fullscreenElement) || !document.fullscreenEnabled);
    document.addEventListener("fullscreenchange", syncFullscreen);
    syncFullscreen();
    // At the bottom, under the footer: the operator's controls, out of the respondent's way.
    document.querySelector(".page")?.append(this.toolbar);
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  /** Whether the page is still a kiosk (false once the device left kiosk mode). */
  get isOn(): boolean {
    return this.isActive;
  }

  /** Shows the seconds left and a "Start over now" button under the thank-you screen, then starts over. */
  thanked(thanks: HTMLElement): void {
    this.isThanking = true;
    let left = KIOSK_THANKS_S;
    const note = h("p", { class: "kiosk-next", role: "status" }, t("kiosk.next.text", { seconds: left }));
    const timer = setInterval(() => {
      left -= 1;
      if (left <= 0 || !this.isActive) {
        clearInterval(timer);
        if (this.isActive) this.reset();
        return;
      }
      note.textContent = t("kiosk.next.text", { seconds: left });
    }, 1000);
    const now = h(
      "button",
      {
        type: "button",
        class: "button button-primary",
        onclick: () => {
          clearInterval(timer);
          this.reset();
        },
      },
      t("kiosk.next.now"),
    );
    thanks.append(note, now);
  }

  /** Starts over for the next respondent: traces cleared, dialogs closed, the first question drawn. */
  reset(): void {
    this.isThanking = false;
    this.isDirty = false;
    this.lastInputAt = Date.now();
    this.closeIdleDialog();
    stopSpeaking();
    clearBrowserTraces();
    window.scrollTo(0, 0);
    this.startOver();
  }

  /** The ticker: opens the "Still there?" countdown once the page has sat idle for `idle_timeout_s`. */
  private tick(): void {
    if (!this.isActive || this.isThanking || this.idleDialog || !this.isDirty) return;
    if (isWorking(this.root)) {
      this.lastInputAt = Date.now();
      return;
    }
    if (Date.now() - this.lastInputAt >= this.settings.idle_timeout_s * 1000) this.askStillThere();
  }

  private askStillThere(): void {
    let left = Math.min(MAX_COUNTDOWN_S, Math.ceil(this.settings.idle_timeout_s / 3));
    const titleId = uniqueId("kiosk-idle");
    const text = h("p", { class: "kiosk-countdown" }, t("kiosk.idle.text", { seconds: left }));
    // The seconds large enough to read from a step away; the sentence carries them for screen readers.
    const seconds = h("p", { class: "kiosk-seconds", "aria-hidden": "true" }, String(left));
    const stay = h("button", { type: "button", class: "button button-primary", onclick: () => this.stay() }, t("kiosk.idle.stay"));
    const dialog = h("dialog", { class: "kiosk-dialog", "aria-labelledby": titleId }, h("h2", { id: titleId }, t("kiosk.idle.title")), seconds, text, stay);
    // Escape means "still here" too.
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      this.stay();
    });
    const timer = setInterval(() => {
      left -= 1;
      if (left <= 0) return this.reset();
      text.textContent = t("kiosk.idle.text", { seconds: left });
      seconds.textContent = String(left);
    }, 1000);
    dialog.addEventListener("close", () => clearInterval(timer));
    document.body.append(dialog);
    this.idleDialog = dialog;
    dialog.showModal();
    stay.focus();
  }

  private stay(): void {
    this.lastInputAt = Date.now();
    this.closeIdleDialog();
  }

  private closeIdleDialog(): void {
    const dialog = this.idleDialog;
    this.idleDialog = null;
    if (!dialog) return;
    if (dialog.open) dialog.close();
    dialog.remove();
  }

  private async enterFullscreen(): Promise<void> {
    try {
      await document.documentElement.requestFullscreen({ navigationUI: "hide" });
    } catch {
      // Refused (no user gesture, or not allowed in a frame): the page works as it is.
    }
  }

  /** Leaves at once without a PIN; else after the PIN dialog (web/intake/kiosk-exit.ts) accepted one. */
  private askToLeave(): void {
    if (!this.settings.has_exit_pin) return this.leave();
    askExitPin(this.apiBase, () => this.leave());
  }

  /** Back to the normal page: no resets, no toolbar, full screen closed, the microphone released. */
  private leave(): void {
    this.isActive = false;
    clearInterval(this.ticker);
    for (const type of ACTIVITY_EVENTS) document.removeEventListener(type, this.onActivity, { capture: true });
    this.closeIdleDialog();
    this.toolbar.remove();
    document.documentElement.classList.remove("kiosk");
    releaseKeptMicrophone();
    if (document.fullscreenElement) void document.exitFullscreen().catch(() => {});
  }
}
