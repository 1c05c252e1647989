/**
 * @module web/intake/main
 * Entry of the intake page's script (served as `/assets/intake.js`). It reads the link from
 * `<script id="earshot-link" type="application/json">`, resumes the session stored for the link,
 * then hands over to {@link IntakeFlow} (docs/intake.md, DESIGN §9). Without a stored session
 * nothing is created yet: the first answer starts the session (a page view is not a response).
 */
import { ApiError, createIntakeApi, type IntakeApi } from "./api.ts";
import { IntakeFlow } from "./flow.ts";
import { respondentMessage } from "./messages.ts";
import { clearSessionId, loadSessionId, saveSessionId } from "./session-store.ts";
import { IntakeState } from "./state.ts";
import type { EmbeddedLinkData, PublicLink, Session, SubmitResult } from "./types.ts";
import { showMessage, showThankYou } from "./views.ts";

const DEFAULT_THANK_YOU = "Thanks for your response!";

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

/** The stored session of the link, or null when there is none (yet) to resume. */
async function resume(api: IntakeApi, link: PublicLink): Promise<Session | null> {
  const stored = loadSessionId(link.uuid);
  if (!stored) return null;
  try {
    return await api.getSession(stored);
  } catch (err) {
    // A session that no longer exists (erased or purged response): the next answer starts anew.
    if (!(err instanceof ApiError && err.status === 404)) throw err;
    clearSessionId(link.uuid);
    return null;
  }
}

function thankYouText(link: PublicLink, result?: SubmitResult): string {
  return result?.thank_you_message || link.settings.thankYouMessage || DEFAULT_THANK_YOU;
}

async function boot(root: HTMLElement, data: EmbeddedLinkData): Promise<void> {
  const { link } = data;
  const api = createIntakeApi(data.api_base);
  const startAgain = () => {
    clearSessionId(link.uuid);
    void boot(root, data);
  };
  let session: Session | null;
  try {
    session = await resume(api, link);
  } catch (err) {
    if (err instanceof ApiError && err.code === "LINK_PAUSED") {
      return showMessage(root, "Not accepting responses", "This form is not accepting responses right now.");
    }
    return showMessage(root, "Something went wrong", `The form could not be loaded. ${respondentMessage(err)}`, {
      label: "Try again",
      run: () => void boot(root, data),
    });
  }
  if (session?.status === "completed") {
    return showThankYou(root, thankYouText(link), null, startAgain);
  }
  const state = new IntakeState(api, link, session?.session_id ?? null, session?.answers, (id) => saveSessionId(link.uuid, id));
  const flow = new IntakeFlow(root, state, api, (result) =>
    showThankYou(root, thankYouText(link, result), result.redirect_url ?? link.settings.redirectUrl ?? null, startAgain),
  );
  flow.start();
}

const appRoot = document.getElementById("earshot-app");
const embedded = readEmbeddedData();
if (appRoot && embedded) {
  void boot(appRoot, embedded);
} else if (appRoot) {
  showMessage(appRoot, "Something went wrong", "This page is missing its form definition.");
}
