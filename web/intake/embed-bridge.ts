/**
 * @module web/intake/embed-bridge
 * The intake page inside an embed (issue 29; docs/embedding.md "Events"): when it is framed by a
 * parent whose origin the operator allows (the page's `frame_origins`, the same sources as its
 * CSP `frame-ancestors`), it posts `earshot:started` once the session starts, `earshot:submitted`
 * once the response is submitted, and `earshot:resize` with its height (an inline embed follows
 * it), each to that origin only. Not framed, or framed by anyone else: it posts nothing.
 */
import { originAllowed } from "../../src/shared/frame-origins.ts";
import type { IntakeApi } from "./api.ts";

/**
 * The parent's origin when the page is framed and the parent is allowed, else null. The parent's
 * origin comes from `location.ancestorOrigins` (Chromium, Safari), else from embed.js's
 * `#embed=<origin>` or the referrer — a claim only: `postMessage` delivers to that origin alone.
 */
export function allowedParentOrigin(frameOrigins: readonly string[]): string | null {
  if (window.parent === window) return null;
  let origin: string | null = location.ancestorOrigins?.[0] ?? null;
  if (!origin) {
    const claimed = new URLSearchParams(location.hash.slice(1)).get("embed");
    try {
      origin = claimed ?? (document.referrer ? new URL(document.referrer).origin : null);
    } catch {
      origin = null;
    }
  }
  if (!origin || origin === "null") return null;
  return originAllowed(origin, frameOrigins, location.origin) ? origin : null;
}

function post(parentOrigin: string, type: string, extra: Record<string, unknown> = {}): void {
  window.parent.postMessage({ earshot: 1, type, ...extra }, parentOrigin);
}

/**
 * The API with `earshot:started` after a session starts and `earshot:submitted` after a submit,
 * posted to `parentOrigin`; the API itself when there is no allowed parent.
 */
export function withEmbedEvents(api: IntakeApi, parentOrigin: string | null): IntakeApi {
  if (!parentOrigin) return api;
  return {
    ...api,
    startSession: async (consent) => {
      const session = await api.startSession(consent);
      post(parentOrigin, "earshot:started");
      return session;
    },
    submit: async (sessionId) => {
      const result = await api.submit(sessionId);
      post(parentOrigin, "earshot:submitted");
      return result;
    },
  };
}

/**
 * Marks the page as embedded (`<html class="embedded">`: less padding, intake.css) and posts its
 * height to `parentOrigin` whenever it changes (an inline embed sizes its frame to it).
 */
export function setUpEmbedding(parentOrigin: string | null): void {
  if (!parentOrigin) return;
  document.documentElement.classList.add("embedded");
  if (typeof ResizeObserver === "undefined") return;
  let last = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.scrollHeight);
    if (height === last) return;
    last = height;
    post(parentOrigin, "earshot:resize", { height });
  }).observe(document.body);
}
