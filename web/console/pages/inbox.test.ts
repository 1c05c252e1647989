/**
 * @module web/console/pages/inbox.test
 * The inbox's data (inbox.ts): the API query made from the address's filters (the hidden-field
 * pair as `hidden.<name>`, no `link` on a link's own inbox), the export's query, and what a row
 * shows of a response.
 */
import { describe, expect, test } from "bun:test";
import type { Answer, ResponseRecord } from "../../../src/modules/responses/model.ts";
import { apiParamsOf, exportParamsOf, gist, sentimentOf, transcriptState } from "./inbox.ts";

const answer = (patch: Partial<Answer>): Answer =>
  ({
    response_type: "text",
    text: null,
    transcription: null,
    audio_url: null,
    ai_insights: null,
    theme: null,
    transcription_status: "not_applicable",
    ...patch,
  }) as Answer;
const response = (answers: Answer[]): ResponseRecord => ({ uuid: "r", answers }) as unknown as ResponseRecord;

describe("queries", () => {
  test("the hidden-field pair becomes hidden.<name>=<value>; half a pair is dropped; link only on the workspace's inbox", () => {
    expect(apiParamsOf({ status: "all", link: "L", hidden_field: "plan", hidden_value: "pro" }, null)).toEqual({
      status: "all",
      link: "L",
      "hidden.plan": "pro",
    });
    expect(apiParamsOf({ link: "L", hidden_field: "plan" }, "L")).toEqual({});
  });

  test("the export keeps the filters but not ordering or link, and asks for completed responses unless told", () => {
    expect(exportParamsOf({ ordering: "-submitted_at", link: "L", search: "slow", topic: "" }).toString()).toBe("search=slow&status=completed");
    expect(exportParamsOf({ status: "all" }).toString()).toBe("status=all");
  });
});

describe("a row", () => {
  test("the gist is the filtered theme's answer, else the first transcript, else typed text that is not an email", () => {
    const email = answer({ response_type: "email", text: "a@b.test" });
    const typed = answer({ text: "Typed words" });
    const spoken = answer({ transcription: "Spoken words" });
    const themed = answer({ text: "In the theme", theme: { uuid: "t1", label: "Price" } });
    expect(gist(response([email, typed, spoken, themed]), "t1").text).toBe("In the theme");
    expect(gist(response([email, typed, spoken])).text).toBe("Spoken words");
    expect(gist(response([email, typed])).text).toBe("Typed words");
    expect(gist(response([email]))).toEqual({ text: "", answer: null });
  });

  test("sentiment of the first analysed answer; the recordings' worst transcript state", () => {
    const insights = (sentiment: "positive" | "negative") => ({ sentiment, sentiment_score: 0, actionable: false, key_topics: [], summary: "" });
    expect(sentimentOf(response([answer({}), answer({ ai_insights: insights("negative") }), answer({ ai_insights: insights("positive") })]))).toBe("negative");
    expect(sentimentOf(response([answer({})]))).toBeNull();
    const rec = (transcription_status: Answer["transcription_status"]) => answer({ audio_url: "/a", transcription_status });
    expect(transcriptState(response([rec("completed"), rec("processing"), rec("failed")]))).toBe("Transcription failed");
    expect(transcriptState(response([rec("pending"), rec("waiting_for_model")]))).toBe("Waiting for the model");
    expect(transcriptState(response([rec("completed"), rec("pending")]))).toBe("Transcribing…");
    expect(transcriptState(response([rec("completed"), answer({ transcription_status: "failed" })]))).toBeNull();
  });
});
