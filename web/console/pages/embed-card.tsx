/**
 * The "Share / Embed" card of a saved link (issue 29; docs/embedding.md): a mode switch (inline,
 * popup, slide-in, button), the one-tag snippet of that mode with "Copy", and on "Show preview" a live preview — an
 * iframe of `/embed/preview/`, a stand-in for the operator's site that loads `/embed.js` with the
 * link in `?preview=1` mode (nothing is recorded), so the overlays open inside the preview.
 */
import { useState } from "preact/hooks";
import { CopyButton } from "../components.tsx";
import { session } from "../state.ts";
import type { Link } from "../../../src/modules/links/model.ts";

type Mode = "inline" | "popup" | "slide-in" | "button";

const MODES: { value: Mode; label: string; hint: string }[] = [
  { value: "inline", label: "Inline", hint: "The form in the page where the tag is, as tall as its content." },
  {
    value: "popup",
    label: "Popup",
    hint: 'A dialog over the page when it loads (data-delay="5" waits 5 s; data-trigger="#feedback" opens it on a click instead).',
  },
  { value: "slide-in", label: "Slide-in", hint: "A panel in the bottom corner when the page loads (data-delay, data-trigger as for the popup)." },
  { value: "button", label: "Button", hint: "A floating “Leave feedback” button that opens the panel (data-label changes its text)." },
];

/** The `<script>` tag a site owner pastes: `/embed.js` from `boxUrl`, the link's public URL, the mode. */
export function embedSnippet(boxUrl: string, publicUrl: string, mode: Mode): string {
  return `<script src="${boxUrl.replace(/\/+$/, "")}/embed.js" data-earshot-link="${publicUrl}" data-mode="${mode}" async></script>`;
}

/** The link's page on this server (`/w/{workspace}/i/{link}`), which the console's origin may frame in preview. */
function localPath(link: Link): string {
  const path = new URL(link.public_url).pathname;
  if (/^\/w\/[^/]+\/i\/[^/]+$/.test(path)) return path;
  const s = session.value;
  const ws = s?.memberships.find((m) => m.workspace_uuid === s.current_workspace_uuid)?.workspace_slug ?? "";
  return `/w/${ws}/i/${link.slug}`;
}

export function EmbedCard({ link }: { link: Link }) {
  const [mode, setMode] = useState<Mode>("inline");
  // Loaded on demand: the builder stays light, and its tab order does not run through the preview's page.
  const [previewing, setPreviewing] = useState(false);
  const box = session.value?.public_url ?? location.origin;
  const snippet = embedSnippet(box, link.public_url, mode);
  const preview = `/embed/preview/?link=${encodeURIComponent(localPath(link))}&mode=${mode}`;
  return (
    <section class="card stack embed-card" aria-labelledby="embed-title">
      <h2 id="embed-title">Share / Embed</h2>
      <p class="muted">
        Paste one tag into your site. The site's origin must be listed under <a href="/console/settings/#embed-title">Settings › Embedding</a>; other sites are
        refused.
      </p>
      {/* Toggle buttons, not radios: each mode is one Tab stop and reads as "pressed". */}
      <div class="embed-modes" role="group" aria-labelledby="embed-mode-label">
        <span id="embed-mode-label" class="embed-modes-label">
          Mode
        </span>
        {MODES.map((m) => (
          <button type="button" key={m.value} class="button-secondary" aria-pressed={mode === m.value} onClick={() => setMode(m.value)}>
            {m.label}
          </button>
        ))}
      </div>
      <div class="field">
        <label for="embed-snippet">Embed snippet</label>
        <div class="copy-row">
          <textarea id="embed-snippet" readOnly class="mono" rows={3} value={snippet} onFocus={(e) => e.currentTarget.select()} aria-describedby="embed-hint" />
          <CopyButton text={snippet} targetId="embed-snippet" />
        </div>
        <p class="hint" id="embed-hint">
          {MODES.find((m) => m.value === mode)!.hint} Hidden fields: data-hidden-order-id="123" sends order_id. Events: earshot:started, earshot:submitted,
          earshot:closed on the script element.
        </p>
      </div>
      <div>
        <button type="button" class="button-secondary" aria-expanded={previewing} onClick={() => setPreviewing(!previewing)}>
          {previewing ? "Hide preview" : "Show preview"}
        </button>
      </div>
      {previewing && <iframe class="embed-preview" title="Embed preview" src={preview} key={preview} />}
    </section>
  );
}
