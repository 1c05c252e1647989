/**
 * @module test/helpers/embedder-set
 * A small question's answers written for the fixture sentence-embedding model
 * (scripts/make-embedder-fixture.py): three topics the fixture knows (shipping, price, the app)
 * of uneven sizes, in words that rarely repeat across answers, and two answers about nothing.
 * `gold` is the topic, null for the two that fit none.
 */
import fs from "node:fs";
import path from "node:path";
import { EMBEDDER_FIXTURE_MODELS_DIR, FIXTURE_EMBEDDING_MODEL } from "./fixtures.ts";

export const FIXTURE_THEME_SET: { id: string; text: string; gold: "shipping" | "price" | "app" | null }[] = [
  { id: "s1", text: "The parcel arrived two weeks late.", gold: "shipping" },
  { id: "p1", text: "Far too expensive for what it is.", gold: "price" },
  { id: "a1", text: "The app crashes at login.", gold: "app" },
  { id: "s2", text: "Delivery took too long, the courier never came.", gold: "shipping" },
  { id: "p2", text: "The fees are overpriced.", gold: "price" },
  { id: "s3", text: "Tracking said delivered but there was no package.", gold: "shipping" },
  { id: "a2", text: "Password reset gives an error every time.", gold: "app" },
  { id: "n1", text: "Thanks, nothing else to say.", gold: null },
  { id: "s4", text: "Postage was slow and the parcel was late.", gold: "shipping" },
  { id: "p3", text: "I was charged twice and still wait for a refund.", gold: "price" },
  { id: "s5", text: "My package was shipped to the wrong post office.", gold: "shipping" },
  { id: "a3", text: "The screen freezes while loading.", gold: "app" },
  { id: "p4", text: "Cheap price, but it costs more money than last year.", gold: "price" },
  { id: "s6", text: "The courier lost the parcel.", gold: "shipping" },
  { id: "a4", text: "The button does nothing after the update.", gold: "app" },
  { id: "n2", text: "Okay I guess.", gold: null },
  { id: "s7", text: "Dispatch took a week and tracking showed nothing.", gold: "shipping" },
  { id: "p5", text: "Paid a fee I did not expect.", gold: "price" },
];

/**
 * Copies the fixture model into `<modelsDir>/<asId>` (e.g. as "Xenova/all-MiniLM-L6-v2", to stand
 * in for an installed model) and returns that folder.
 */
export function installFixtureEmbedder(modelsDir: string, asId: string): string {
  const target = path.join(modelsDir, asId);
  fs.cpSync(path.join(EMBEDDER_FIXTURE_MODELS_DIR, FIXTURE_EMBEDDING_MODEL), target, { recursive: true });
  return target;
}
