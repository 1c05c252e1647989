/**
 * "Card N image file" of an image-choice card in the builder (issue 26): the chosen file is sent
 * as-is to `POST media/images/` (the same call a key holder makes with curl), and the stored
 * image's public URL fills the card's media URL. The server judges the type by the bytes (PNG,
 * JPEG, WebP, GIF; never SVG) and the size (5 MiB); the page checks the size first so a large
 * photo is refused before it is sent.
 */
import { useState } from "preact/hooks";
import { api, apiPath } from "../api.ts";
import { toApiError } from "../components.tsx";

const MAX_BYTES = 5 * 1024 * 1024;
const ACCEPT = "image/png,image/jpeg,image/webp,image/gif";

type Props = { id: string; label: string; onUploaded: (url: string) => void };

/** A file input that uploads the chosen image and reports what happened. */
export function ImageUpload({ id, label, onUploaded }: Props) {
  const [state, setState] = useState<{ kind: "idle" | "busy" | "done" | "error"; text: string }>({ kind: "idle", text: "" });
  const upload = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    if (file.size > MAX_BYTES) {
      setState({ kind: "error", text: `${file.name} is larger than 5 MB; choose a smaller image.` });
      return;
    }
    setState({ kind: "busy", text: `Uploading ${file.name}…` });
    try {
      const image = await api<{ url: string }>("POST", apiPath`media/images/`, file);
      onUploaded(image.url);
      setState({ kind: "done", text: `${file.name} uploaded; its URL is the card's media URL.` });
    } catch (err) {
      setState({ kind: "error", text: toApiError(err).message });
    } finally {
      input.value = "";
    }
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} type="file" accept={ACCEPT} aria-describedby={`${id}-hint`} onChange={(e) => upload(e.currentTarget)} />
      <p class="hint" id={`${id}-hint`}>
        PNG, JPEG, WebP or GIF, at most 5 MB.
      </p>
      <p class={state.kind === "error" ? "field-error" : "hint"} role={state.kind === "error" ? "alert" : "status"}>
        {state.text}
      </p>
    </div>
  );
}
