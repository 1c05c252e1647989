/**
 * The cards a saved link's builder page shows above its form, in order: LINK_CARDS. A new card
 * (e.g. an embed snippet) is one component taking `{ link }`, added to the list.
 */
import type { Link } from "../../../src/modules/links/model.ts";
import { CopyButton } from "../components.tsx";

/** Props of every card: the saved link as `GET links/{uuid}/` returned it. */
export type LinkCardProps = { link: Link };

/** "Public URL" with Copy, and whether the link accepts responses. */
export function PublicUrlCard({ link }: LinkCardProps) {
  return (
    <div class="card stack">
      <div class="field">
        <label for="public-url">Public URL</label>
        <div class="copy-row">
          <input id="public-url" readOnly class="mono" value={link.public_url} onFocus={(e) => e.currentTarget.select()} />
          <CopyButton text={link.public_url} targetId="public-url" />
        </div>
        <p class="hint">
          {link.status === "active" ? "Accepting responses." : "Paused: the page says it is not accepting responses."} “Preview” opens the page without
          recording anything.
        </p>
      </div>
    </div>
  );
}

/** The cards, in the order they are shown. */
export const LINK_CARDS: ((p: LinkCardProps) => preact.JSX.Element)[] = [PublicUrlCard];
