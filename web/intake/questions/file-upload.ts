/**
 * @module web/intake/questions/file-upload
 * File attachment: `allowed_types` becomes the input's `accept`, `max_size_mb` (default 10) is
 * checked before uploading to `…/file/`. The server checks both again (415, 413). The hint names
 * the allowed types in words ("Images or PDF files, up to 10 MB.").
 */
import { h } from "../dom.ts";
import { formatBytes, formatMegabytes, t } from "../i18n.ts";
import { describeFileTypes, respondentMessage } from "../messages.ts";
import type { AnswerState } from "../types.ts";
import { labelledQuestion, type QuestionContext, type RenderedQuestion } from "./common.ts";

const DEFAULT_MAX_SIZE_MB = 10;

function storedFileName(answer: AnswerState | undefined): string | null {
  if (!answer) return null;
  if (answer.file?.name) return answer.file.name;
  const value = answer.value as { name?: unknown } | string | null;
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof value.name === "string") return value.name;
  return null;
}

/** Renders a `file_upload` question. */
export function renderFileUpload({ question, state, api }: QuestionContext): RenderedQuestion {
  const config = question.configuration;
  const maxMb = config.max_size_mb ?? DEFAULT_MAX_SIZE_MB;
  const input = h("input", { type: "file", accept: config.allowed_types?.join(",") || false });
  const status = h("p", { class: "status", role: "status" });
  const stored = storedFileName(state.answer(question));
  if (stored) status.textContent = t("file.uploaded", { name: stored });

  input.addEventListener("change", () => {
    const file = input.files?.[0];
    if (!file) return;
    if (file.size > maxMb * 1024 * 1024) {
      state.setError(question, t("file.tooLargeLocal", { size: formatBytes(file.size), max: formatMegabytes(maxMb) }));
      status.textContent = "";
      input.value = "";
      return;
    }
    state.setError(question, null);
    status.textContent = t("file.uploading", { name: file.name });
    const upload = state
      .ensureSession()
      .then((sessionId) => api.uploadFile(sessionId, question.uuid, file))
      .then(
        (answer) => {
          state.applyAnswer(answer);
          status.textContent = t("file.uploadedSize", { name: file.name, size: formatBytes(file.size) });
        },
        (err: unknown) => {
          state.setError(question, respondentMessage(err, { question }));
          status.textContent = "";
          input.value = "";
        },
      );
    state.track(question, upload);
  });
  return {
    element: labelledQuestion(question, input, describeFileTypes(config.allowed_types, maxMb), status),
    control: input,
  };
}
