/**
 * @module web/intake/flow
 * One question at a time: Back / Next / Submit over the questions visible for the current
 * answers (conditions are re-evaluated on every change), client-side `required` and format
 * checks before moving on, and the final submit (docs/intake.md). Text-to-speech reads each
 * prompt when the link's `tts_enabled` is set. With `enable_dynamic_probing`, Next asks the
 * server for follow-up questions ("Thinking…") and shows each before moving on. An error under
 * the question is checked again whenever the answer changes and disappears once it is valid.
 */
import { ApiError, type IntakeApi } from "./api.ts";
import { visibleQuestions } from "./conditions.ts";
import { h, uniqueId } from "./dom.ts";
import { renderFollowUp, type FollowUpView } from "./follow-up.ts";
import { renderQuestion, type RenderedQuestion } from "./questions/index.ts";
import { promptOf } from "./content.ts";
import { language, t } from "./i18n.ts";
import { requiredMessage, respondentMessage } from "./messages.ts";
import { speakPrompt, stopSpeaking } from "./speech.ts";
import type { IntakeState } from "./state.ts";
import type { PublicQuestion, SubmitResult } from "./types.ts";

/** Drives the form inside `root` until the response is submitted. */
export class IntakeFlow {
  private readonly questions: PublicQuestion[];
  private current: PublicQuestion | null = null;
  private rendered: RenderedQuestion | null = null;
  /** The follow-up of `current` on screen, if any (dynamic probing). */
  private followUp: { index: number; question: string } | null = null;
  private isBusy = false;
  private readonly errorId = uniqueId("form-error");
  private readonly slot = h("div", { class: "question-slot" });
  private readonly error = h("p", { class: "form-error", id: this.errorId, role: "alert" });
  private readonly thinking = h("p", { class: "thinking", role: "status", "aria-live": "polite" });
  private readonly progress = h("progress", { class: "progress-bar", "aria-hidden": "true" });
  private readonly progressText = h("p", { class: "progress-text" });
  private readonly backButton = h("button", { type: "button", class: "button button-secondary" }, t("nav.back"));
  private readonly primaryButton = h("button", { type: "submit", class: "button button-primary" }, t("nav.next"));

  /**
   * @param onSubmitted called with the server's submit answer (thank-you text, redirect)
   */
  constructor(
    private readonly root: HTMLElement,
    private readonly state: IntakeState,
    private readonly api: IntakeApi,
    private readonly onSubmitted: (result: SubmitResult) => void,
  ) {
    this.questions = [...state.link.questions].sort((a, b) => a.order - b.order);
    state.subscribe(() => {
      this.updateChrome();
      this.recheckError();
    });
    // Typing that is not saved yet (an unfinished email address) changes validity too.
    for (const type of ["input", "change"]) this.slot.addEventListener(type, () => this.recheckError());
  }

  /** Builds the form and shows the first unanswered visible question (resume) or the first. */
  start(): void {
    const form = h(
      "form",
      { class: "intake-form", novalidate: true },
      h("div", { class: "progress" }, this.progress, this.progressText),
      this.slot,
      this.thinking,
      this.error,
      h("div", { class: "nav" }, this.backButton, this.primaryButton),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.forward();
    });
    this.backButton.addEventListener("click", () => void this.back());
    this.root.replaceChildren(form);
    const visible = this.visible();
    const first = visible.find((q) => !this.state.isAnswered(q) || this.pendingFollowUp(q)) ?? visible.at(-1) ?? null;
    this.show(first, false, first && this.pendingFollowUp(first));
  }

  /**
   * Draws the question on screen again in the language now in use (i18n `setLanguage`): the
   * answers, saved or still being typed, are kept in the state, so nothing is lost; focus stays
   * where it is (on the language switcher).
   */
  relabel(): void {
    if (this.isBusy) return;
    const hadError = this.error.textContent !== "";
    this.show(this.current, false, this.followUp);
    if (hadError) this.showError(this.problemNow());
  }

  /** Lets go of the question on screen (a recording in progress stops; kiosk mode starting over). */
  dispose(): void {
    this.rendered?.dispose?.();
    this.rendered = null;
  }

  /** An unanswered follow-up of an answered probing question (shown again after a reload). */
  private pendingFollowUp(q: PublicQuestion): { index: number; question: string } | null {
    return q.enable_dynamic_probing && this.state.isAnswered(q) ? this.state.pendingFollowUp(q) : null;
  }

  private visible(): PublicQuestion[] {
    return visibleQuestions(this.questions, (q) => this.state.conditionValue(q), this.state.hidden);
  }

  private show(q: PublicQuestion | null, moveFocus: boolean, followUp: { index: number; question: string } | null = null): void {
    this.rendered?.dispose?.();
    this.current = q;
    this.followUp = q ? followUp : null;
    this.showError(null);
    if (!q) {
      this.rendered = null;
      this.slot.replaceChildren(h("p", { class: "question-empty" }, t("nav.empty")));
    } else {
      const ctx = { question: q, state: this.state, api: this.api };
      this.rendered = followUp ? renderFollowUp(ctx, followUp) : renderQuestion(ctx);
      this.slot.replaceChildren(this.rendered.element);
      if (this.state.link.settings.tts_enabled) {
        // Browsers may refuse speech before the first click; the button replays it on demand.
        const prompt = followUp?.question ?? promptOf(q, language());
        this.slot.append(h("button", { type: "button", class: "link-button speak-button", onclick: () => speakPrompt(prompt) }, t("nav.readAloud")));
        speakPrompt(prompt);
      }
    }
    this.updateChrome();
    if (moveFocus) this.focusQuestion();
  }

  private focusQuestion(): void {
    // In order of preference: a text field, the chosen option, the first option, a button.
    const selectors = ["input:not(.option-input), textarea", ".option-input:checked", ".option-input", "button:not(.speak-button)"];
    for (const selector of selectors) {
      const el = this.slot.querySelector<HTMLElement>(selector);
      if (el) {
        el.focus();
        break;
      }
    }
    this.slot.scrollIntoView({ block: "nearest" });
  }

  private updateChrome(): void {
    const visible = this.visible();
    const index = this.current ? visible.findIndex((q) => q.uuid === this.current!.uuid) : -1;
    const isLast = index === visible.length - 1 || visible.length === 0;
    this.primaryButton.textContent = isLast ? t("nav.submit") : t("nav.next");
    this.backButton.textContent = t("nav.back");
    this.primaryButton.disabled = this.isBusy;
    this.backButton.hidden = index <= 0 && !this.followUp;
    this.backButton.disabled = this.isBusy;
    this.progress.max = Math.max(visible.length, 1);
    this.progress.value = Math.max(index + 1, 0);
    this.progressText.textContent = visible.length > 0 && index >= 0 ? t("nav.progress", { current: index + 1, total: visible.length }) : "";
  }

  private showError(message: string | null): void {
    this.error.textContent = message ?? "";
    const control = this.rendered?.control;
    if (!control) return;
    if (message) {
      control.setAttribute("aria-invalid", "true");
      control.setAttribute("aria-errormessage", this.errorId);
    } else {
      control.removeAttribute("aria-invalid");
      control.removeAttribute("aria-errormessage");
    }
  }

  /**
   * The problem the current answer has right now, without waiting for saves: a format error, the
   * last save's error, or `required` left empty. Null when the answer is valid.
   */
  private problemNow(): string | null {
    const q = this.current;
    if (!q) return null;
    if (this.followUp) return (this.rendered as FollowUpView).isSatisfied() ? null : this.error.textContent;
    const formatError = this.rendered?.validate?.() ?? null;
    if (formatError) return formatError;
    const saveError = this.state.errorFor(q);
    if (saveError) return saveError;
    return q.required && !this.state.isAnswered(q) ? requiredMessage(q) : null;
  }

  /** Updates a shown error as the answer changes: gone as soon as the answer is valid. */
  private recheckError(): void {
    if (!this.error.textContent || this.isBusy) return;
    const problem = this.problemNow();
    if (problem !== this.error.textContent) this.showError(problem);
  }

  /** Waits for the current question's recording, saves and uploads; returns its error if any. */
  private async leave(q: PublicQuestion, rendered: RenderedQuestion | null): Promise<string | null> {
    await rendered?.settle?.();
    await this.state.flush(q);
    const formatError = rendered?.validate?.() ?? null;
    if (formatError) return formatError;
    const saveError = this.state.errorFor(q);
    if (saveError) return saveError;
    return q.required && !this.state.isAnswered(q) ? requiredMessage(q) : null;
  }

  private async busy<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (this.isBusy) return undefined;
    this.isBusy = true;
    this.root.setAttribute("aria-busy", "true");
    this.updateChrome();
    try {
      return await work();
    } finally {
      this.isBusy = false;
      this.root.removeAttribute("aria-busy");
      this.updateChrome();
    }
  }

  private async forward(): Promise<void> {
    await this.busy(async () => {
      const q = this.current;
      if (q) {
        const problem = this.followUp ? await (this.rendered as FollowUpView).save() : await this.leave(q, this.rendered);
        if (problem) return this.showError(problem);
        this.showError(null);
        const followUp = await this.probe(q);
        if (followUp) return this.show(q, true, followUp);
      }
      const visible = this.visible();
      const index = q ? visible.findIndex((v) => v.uuid === q.uuid) : -1;
      const next = visible[index + 1];
      if (next) return this.show(next, true);
      await this.submit(visible);
    });
  }

  /**
   * The next follow-up of an answered probing question: one still unanswered, else whatever
   * `POST …/probe/` asks (null moves on; so does a failed probe, as follow-ups are optional).
   */
  private async probe(q: PublicQuestion): Promise<{ index: number; question: string } | null> {
    if (!q.enable_dynamic_probing || !this.state.isAnswered(q)) return null;
    const pending = this.state.pendingFollowUp(q);
    if (pending) return pending;
    this.thinking.textContent = t("nav.thinking");
    try {
      const result = await this.api.probe(await this.state.ensureSession(), q.uuid);
      this.state.setFollowUps(q, result.follow_ups);
      return result.follow_up;
    } catch {
      return null;
    } finally {
      this.thinking.textContent = "";
    }
  }

  private async back(): Promise<void> {
    const q = this.current;
    if (!q || this.isBusy) return;
    void this.rendered?.settle?.();
    if (this.followUp) return this.show(q, true);
    const visible = this.visible();
    const previous = visible[visible.findIndex((v) => v.uuid === q.uuid) - 1];
    if (previous) this.show(previous, true);
  }

  private async submit(visible: PublicQuestion[]): Promise<void> {
    await this.state.flushAll();
    for (const q of visible) {
      const problem = q.required && !this.state.isAnswered(q) ? requiredMessage(q) : this.state.errorFor(q);
      if (problem) {
        this.show(q, true);
        return this.showError(problem);
      }
    }
    try {
      const result = await this.api.submit(await this.state.ensureSession());
      stopSpeaking();
      this.onSubmitted(result);
    } catch (err) {
      this.handleSubmitError(err, visible);
    }
  }

  private handleSubmitError(err: unknown, visible: PublicQuestion[]): void {
    if (err instanceof ApiError && err.code === "ALREADY_SUBMITTED") {
      return this.onSubmitted({ status: "completed" });
    }
    if (err instanceof ApiError && err.errors.length > 0) {
      const first = err.errors[0]!;
      const fieldKey = first.pointer.split("/")[2];
      const q = visible.find((v) => v.field_key === fieldKey);
      if (q) {
        this.show(q, true);
        return this.showError(q.required && !this.state.isAnswered(q) ? requiredMessage(q) : respondentMessage(err, { question: q }));
      }
    }
    this.showError(t("nav.submitFailed", { reason: respondentMessage(err) }));
  }
}
