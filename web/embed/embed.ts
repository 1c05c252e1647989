/**
 * @module web/embed/embed
 * `/embed.js` (issue 29; docs/embedding.md): one `<script>` tag on a site owner's page shows an
 * Earshot link inline, as a popup, as a slide-in or behind a floating "Leave feedback" button.
 * The iframe gets `allow="microphone"`; `data-hidden-*` attributes become the intake URL's
 * hidden-field values; the page's `earshot:started` / `earshot:submitted` messages are accepted
 * only from the iframe and the link's origin, and re-dispatched as DOM `CustomEvent`s on the
 * script element (they bubble to `document`), with `earshot:closed` when the visitor closes the
 * overlay. No third-party code; a classic script (IIFE) so `document.currentScript` is ours.
 * Styles go through a shadow root's constructed stylesheet, which a host page's CSP
 * (`style-src`) does not block and whose rules cannot leak into, or be hit by, the host's CSS.
 */
import { EMBED_CSS } from "./styles.ts";

declare const __EARSHOT_VERSION__: string;

type Mode = "inline" | "popup" | "slide-in" | "button";
const MODES: readonly Mode[] = ["inline", "popup", "slide-in", "button"];
/** The events relayed from the page (`earshot:closed` is the overlay's own). */
const RELAYED = new Set(["earshot:started", "earshot:submitted"]);
/** Bounds of an inline frame's height as the page reports it (px). */
const MIN_HEIGHT_PX = 240;
const MAX_HEIGHT_PX = 4000;

/**
 * The link's page URL from `data-earshot-link`: a full http(s) URL, a path (`/i/nps`), a
 * `workspace/link` pair or a bare link slug (both resolved against the script's own origin).
 */
function linkUrl(raw: string, scriptSrc: string): URL | null {
  const base = new URL(scriptSrc, location.href);
  let url: URL;
  if (/^https?:\/\//i.test(raw) || raw.startsWith("/")) url = new URL(raw, base);
  else if (/^[a-z0-9-]+\/[a-z0-9-]+$/.test(raw)) {
    const [ws, slug] = raw.split("/");
    url = new URL(`/w/${ws}/i/${slug}`, base);
  } else if (/^[a-z0-9-]+$/.test(raw)) url = new URL(`/i/${raw}`, base);
  else return null;
  return /^https?:$/.test(url.protocol) ? url : null;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string>, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

function mount(script: HTMLScriptElement): void {
  script.setAttribute("data-earshot-ready", "");
  const data = script.dataset;
  const raw = data.earshotLink?.trim() ?? "";
  const url = raw ? linkUrl(raw, script.src) : null;
  if (!url) {
    console.error(`Earshot embed: data-earshot-link must name a link (a public URL or its slug), got "${raw}".`);
    return;
  }
  const mode = (MODES as readonly string[]).includes(data.mode ?? "") ? (data.mode as Mode) : "inline";
  const publicUrl = url.origin + url.pathname;
  // data-hidden-order-id="123" → ?order_id=123 (hidden fields are snake_case, issue 25).
  for (const attr of Array.from(script.attributes)) {
    if (attr.name.startsWith("data-hidden-") && attr.value) url.searchParams.set(attr.name.slice(12).replaceAll("-", "_"), attr.value);
  }
  if (data.preview !== undefined) url.searchParams.set("preview", "1");
  // Browsers without location.ancestorOrigins learn the parent's origin from this; the page still
  // checks it against the allowed origins, and postMessage delivers only to a matching parent.
  url.hash = `embed=${encodeURIComponent(location.origin)}`;
  const title = data.title || "Feedback";
  let frame: HTMLIFrameElement | null = null;

  const emit = (type: string) => {
    const event = new CustomEvent(type, { bubbles: true, composed: true, detail: { link: publicUrl, mode } });
    (script.isConnected ? script : document).dispatchEvent(event);
  };
  const makeFrame = () => {
    frame = el("iframe", { src: url.href, allow: "microphone", title, class: "frame" });
    return frame;
  };

  window.addEventListener("message", (e) => {
    if (e.origin !== url.origin || !frame || e.source !== frame.contentWindow) return;
    const msg = e.data as { earshot?: number; type?: string; height?: number } | null;
    if (!msg || typeof msg !== "object" || msg.earshot !== 1 || typeof msg.type !== "string") return;
    if (msg.type === "earshot:resize" && mode === "inline" && typeof msg.height === "number") {
      frame.style.height = `${Math.min(MAX_HEIGHT_PX, Math.max(MIN_HEIGHT_PX, Math.ceil(msg.height)))}px`;
    } else if (RELAYED.has(msg.type)) emit(msg.type);
  });

  if (mode === "inline") {
    const f = makeFrame();
    Object.assign(f.style, {
      display: "block",
      width: "100%",
      maxWidth: "100%",
      height: `${Number(data.height) || 640}px`,
      border: "0",
      colorScheme: "normal",
    });
    const target = data.target ? document.querySelector(data.target) : null;
    if (target) target.append(f);
    else script.after(f);
    return;
  }

  const host = el("div", { "data-earshot-embed": mode });
  const root = host.attachShadow({ mode: "open" });
  // Old browsers without constructed stylesheets get a <style> (which a strict host CSP may block).
  if (typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(EMBED_CSS);
    root.adoptedStyleSheets = [sheet];
  } else (root as ShadowRoot).append(el("style", {}, EMBED_CSS));
  document.body.append(host);

  const close = el("button", { type: "button", class: "close", "aria-label": `Close ${title}` }, "×");
  const bar = el("div", { class: "bar" }, el("span", { class: "title" }, title), close);
  let isOpen = false;
  let opener: ((byVisitor: boolean) => void) | null = null;
  let closer: (() => void) | null = null;

  if (mode === "popup") {
    // The dialog itself takes the focus (not the close button, which would wear a ring on opening).
    const dialog = el("dialog", { class: "popup", "aria-label": title, tabindex: "-1" }, bar);
    root.append(dialog);
    opener = () => {
      if (!frame) dialog.append(makeFrame());
      dialog.showModal();
      dialog.focus();
    };
    closer = () => dialog.close();
    // Escape and close() both end in "close".
    dialog.addEventListener("close", () => {
      if (isOpen) emit("earshot:closed");
      isOpen = false;
    });
    dialog.addEventListener("click", (e) => e.target === dialog && dialog.close()); // the backdrop
  } else {
    const panel = el("div", { class: `panel ${mode}`, role: "dialog", "aria-label": title, hidden: "" }, bar);
    root.append(panel);
    const launcher = mode === "button" ? el("button", { type: "button", class: "launcher", "aria-expanded": "false" }, data.label || "Leave feedback") : null;
    if (launcher) {
      root.append(launcher);
      launcher.addEventListener("click", () => (isOpen ? closer!() : open(true)));
    }
    opener = (byVisitor) => {
      if (!frame) panel.append(makeFrame());
      panel.hidden = false;
      launcher?.setAttribute("aria-expanded", "true");
      // A panel the visitor opened takes the focus; one that slid in on its own does not steal it.
      if (byVisitor) close.focus();
    };
    closer = () => {
      panel.hidden = true;
      launcher?.setAttribute("aria-expanded", "false");
      if (isOpen) emit("earshot:closed");
      isOpen = false;
      if (launcher) launcher.focus();
    };
    panel.addEventListener("keydown", (e) => e.key === "Escape" && closer!());
  }
  close.addEventListener("click", () => closer!());
  const open = (byVisitor: boolean) => {
    if (isOpen) return;
    isOpen = true;
    opener!(byVisitor);
  };

  if (mode === "button") return;
  // Popup and slide-in: on load (after data-delay seconds), or on a click of data-trigger's elements.
  if (data.trigger) {
    document.addEventListener("click", (e) => {
      if (e.target instanceof Element && e.target.closest(data.trigger!)) open(true);
    });
  } else setTimeout(() => open(false), Math.max(0, Number(data.delay) || 0) * 1000);
}

const current = document.currentScript;
if (current instanceof HTMLScriptElement && !current.hasAttribute("data-earshot-ready")) {
  (window as unknown as { Earshot?: { version: string } }).Earshot = { version: __EARSHOT_VERSION__ };
  mount(current);
}
