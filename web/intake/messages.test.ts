/**
 * @module web/intake/messages.test
 * The page's respondent-facing wording: email addresses are judged as the server judges them
 * (the same answers as `checkAnswerValue`), file types read in words, and server problems never
 * reach the respondent in a developer's words.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { checkAnswerValue } from "../../src/modules/intake/answer-values.ts";
import { ApiError } from "./api.ts";
import { setLanguage } from "./i18n.ts";
import en from "./i18n/en.json";
import { describeFileTypes, emailMessage, isEmailAddress, respondentMessage } from "./messages.ts";
import type { PublicQuestion } from "./types.ts";

const ADDRESSES = [
  "ann@example.com",
  "ann.lee+news@mail.example.co.uk",
  " ann@example.org ",
  "o'neil@example.ie",
  "a_b-c@sub-domain.example.io",
  "ann@example",
  "ann@",
  "@example.com",
  "ann example@example.com",
  "ann..lee@example.com",
  ".ann@example.com",
  "ann.@example.com",
  "ann@-example.com",
  "ann@example.c",
  "ann@@example.com",
  "ann@exa_mple.com",
  "",
  `${"a".repeat(310)}@example.com`,
];

function question(response_type: PublicQuestion["response_type"], configuration: PublicQuestion["configuration"] = {}): PublicQuestion {
  return { uuid: "q", prompt: "Prompt", response_type, field_key: "f", order: 0, required: true, configuration, condition: {} };
}

beforeAll(() => setLanguage("en", en));

describe("respondent-facing messages", () => {
  test("email addresses: the page accepts exactly what the server accepts", () => {
    for (const address of ADDRESSES) {
      let serverAccepts = true;
      try {
        checkAnswerValue({ type: "email", configuration: {}, field_key: "email" }, address);
      } catch {
        serverAccepts = false;
      }
      expect([address, isEmailAddress(address)]).toEqual([address, serverAccepts]);
    }
  });

  test("file types in words", () => {
    expect(describeFileTypes(["image/*", ".pdf"], 10)).toBe("Images or PDF files, up to 10 MB.");
    expect(describeFileTypes(["image/png", ".png"], 2)).toBe("PNG images, up to 2 MB.");
    expect(describeFileTypes([".docx", "application/pdf", "text/csv"], 5)).toBe("Word documents, PDF files, or CSV files, up to 5 MB.");
    expect(describeFileTypes(undefined, 10)).toBe("Any file, up to 10 MB.");
  });

  test("server problems in plain words, per question", () => {
    const invalid = (message: string) => new ApiError(400, "VALIDATION_ERROR", message, [{ pointer: "/value", message }]);
    expect(respondentMessage(invalid("Expected a valid email address."), { question: question("email") })).toBe(emailMessage());
    expect(respondentMessage(invalid("At most 500."), { question: question("number", { min: 1, max: 500 }) })).toBe("Please enter a number from 1 to 500.");
    const file = question("file_upload", { allowed_types: ["image/*", ".pdf"], max_size_mb: 10 });
    expect(respondentMessage(new ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "Accepted file types: image/*, .pdf."), { question: file })).toBe(
      "This kind of file can't be used here. Please choose images or PDF files.",
    );
    expect(respondentMessage(new ApiError(413, "PAYLOAD_TOO_LARGE", "Files may be at most 10 MiB."), { question: file })).toBe(
      "This file is too large. Files can be up to 10 MB.",
    );
    expect(respondentMessage(new ApiError(400, "AUDIO_TOO_LONG", "The recording is 95.2 s long; the limit is 62 s."), { recordingMaxS: 60 })).toBe(
      "This recording is too long. Please keep it under 1 minute.",
    );
    expect(respondentMessage(new ApiError(429, "RATE_LIMITED", "Too many sessions from 10.0.0.1."))).toBe(
      "Too many attempts in a short time. Please wait a minute and try again.",
    );
    expect(respondentMessage(new ApiError(500, "INTERNAL", "TypeError at /srv/earshot/src/x.ts:12"))).not.toContain("/srv");
    expect(respondentMessage(new Error("fetch failed: ECONNRESET"))).toBe("Something went wrong. Please try again.");
  });
});
