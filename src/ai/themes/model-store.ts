/**
 * @module ai/themes/model-store
 * The {@link ThemeModel} a question's rebuild leaves for the worker's per-answer assignment, and
 * its JSON form for storage (vectors as base64 of little-endian float32, so a 100-d centre is 540
 * characters instead of ~2 KB of decimals). Decoding validates everything (zod) and throws a
 * plain Error naming what is wrong: a stored model is trusted no more than any other input.
 */
import { z } from "zod";
import type { ThemeBuild } from "./build.ts";
import { DEFAULT_ASSIGN_THRESHOLD, type ThemeModel } from "./incremental.ts";

/**
 * The assignment model of a build: its engine, removed components, and each theme's centre
 * (operator themes with their examples' vectors when given).
 * @param ids the stored id of each built theme, by `BuiltTheme.key` (default: the key itself).
 * @param examples embedder vectors of operator themes' example answers, by stored id.
 */
export function themeModelOf(
  build: ThemeBuild,
  options: { threshold?: number; ids?: Map<string, string>; examples?: Map<string, Float32Array[]> } = {},
): ThemeModel {
  return {
    engine: build.engine,
    components: build.components,
    threshold: options.threshold ?? DEFAULT_ASSIGN_THRESHOLD,
    themes: build.themes.map((t) => {
      const id = options.ids?.get(t.key) ?? t.key;
      const examples = options.examples?.get(id);
      return { id, centre: t.centre, ...(examples && examples.length > 0 ? { examples } : {}) };
    }),
  };
}

const toBase64 = (v: Float32Array) => Buffer.from(new Uint8Array(Float32Array.from(v).buffer)).toString("base64");

function fromBase64(s: string, dims: number): Float32Array {
  const bytes = Buffer.from(s, "base64");
  if (bytes.length !== dims * 4) throw new Error(`theme model: a vector has ${bytes.length / 4} numbers, expected ${dims}`);
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = bytes.readFloatLE(i * 4);
  if (!out.every(Number.isFinite)) throw new Error("theme model: a vector holds a non-finite number");
  return out;
}

const Vector = z.string().max(100_000);
const Stored = z.object({
  version: z.literal(1),
  engine: z.string().min(1).max(200),
  dimensions: z.number().int().min(1).max(4096),
  threshold: z.number().min(-1).max(1),
  components: z.array(Vector).max(8),
  themes: z.array(z.object({ id: z.string().min(1).max(200), centre: Vector, examples: z.array(Vector).max(100).optional() })).max(10_000),
});

/** JSON text of a model (DESIGN §12 storage is the caller's; this is only the encoding). */
export function encodeThemeModel(model: ThemeModel): string {
  const dimensions = model.themes[0]?.centre.length ?? model.components[0]?.length ?? 0;
  return JSON.stringify({
    version: 1,
    engine: model.engine,
    dimensions,
    threshold: model.threshold,
    components: model.components.map(toBase64),
    themes: model.themes.map((t) => ({ id: t.id, centre: toBase64(t.centre), ...(t.examples ? { examples: t.examples.map(toBase64) } : {}) })),
  });
}

/**
 * Parses {@link encodeThemeModel}'s text.
 * @throws Error when the text is not JSON, not a version-1 model, or a vector has the wrong length.
 */
export function decodeThemeModel(text: string): ThemeModel {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error("theme model: not JSON");
  }
  const parsed = Stored.safeParse(value);
  if (!parsed.success) throw new Error(`theme model: ${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`);
  const m = parsed.data;
  return {
    engine: m.engine,
    threshold: m.threshold,
    components: m.components.map((c) => fromBase64(c, m.dimensions)),
    themes: m.themes.map((t) => ({
      id: t.id,
      centre: fromBase64(t.centre, m.dimensions),
      ...(t.examples ? { examples: t.examples.map((e) => fromBase64(e, m.dimensions)) } : {}),
    })),
  };
}
