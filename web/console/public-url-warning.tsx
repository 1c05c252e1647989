/**
 * The warning shown under the header when the console is opened under another origin than the
 * server's public URL (`Session.public_url`, EARSHOT_PUBLIC_URL; issue 26). Public links, their
 * QR codes and invite URLs are built from the public URL, so with it left at
 * `http://localhost:3000` they would send respondents to their own machine. "Hide" remembers the
 * pair (public URL, this origin) in the browser, so a deliberate second address stays quiet.
 */
import { useState } from "preact/hooks";
import { session } from "./state.ts";

const HIDDEN_KEY = "earshot.public-url-warning.hidden";

/** The origin of `url`, or null when it is not a URL. */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** The warning, or nothing when the origins match (or it was hidden for this pair). */
export function PublicUrlWarning() {
  const publicUrl = session.value?.public_url ?? "";
  const configured = originOf(publicUrl);
  const here = window.location.origin;
  const pair = `${configured} ${here}`;
  const [hidden, setHidden] = useState(() => localStorage.getItem(HIDDEN_KEY) === pair);
  if (!configured || configured === here || hidden) return null;
  const hide = () => {
    localStorage.setItem(HIDDEN_KEY, pair);
    setHidden(true);
  };
  return (
    <section class="public-url-warning" aria-labelledby="public-url-warning-title">
      <h2 id="public-url-warning-title">Links point to {configured}</h2>
      <p>
        You opened the console at <span class="mono">{here}</span>, but this server's public URL is <span class="mono">{configured}</span>. Public links, QR
        codes and invite URLs are built from the public URL, so people elsewhere may not reach them.
      </p>
      <p>
        Set <code>EARSHOT_PUBLIC_URL</code> to the address people use, for example <code class="mono">EARSHOT_PUBLIC_URL={here}</code>, and restart Earshot.
      </p>
      <button type="button" class="button-secondary" onClick={hide}>
        Hide
      </button>
    </section>
  );
}
