/**
 * @module model-store/manifest
 * `models/manifest.json` (DESIGN §9): which model files Earshot installs, from which hub revision,
 * their licenses, and how each file is checked — against the size and sha256 written in the
 * manifest (every file of the bundled manifest), or, for a file whose hash a custom manifest
 * (`--manifest FILE`) leaves null, against the size and sha256 recorded on its first fetch.
 * The default manifest is bundled into the binary; `--manifest FILE` replaces it.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { lazySchema } from "../shared/lazy-schema.ts";
import defaultManifestJson from "../../models/manifest.json" with { type: "json" };

/** One folder or file name: no empty, "." or ".." segments, no separators. */
const SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._-]+$/;
const relativePath = (what: string, maxSegments: number) =>
  z.string().refine((p) => {
    const parts = p.split("/");
    return parts.length <= maxSegments && parts.every((s) => SEGMENT.test(s));
  }, `${what} must be a relative path of plain names (no "..", no leading "/")`);

/** How a file is checked. */
export const VERIFY_MODES = ["sha256", "size-and-sha256-recorded-on-first-fetch"] as const;
export type VerifyMode = (typeof VERIFY_MODES)[number];

const fileSchema = lazySchema(() =>
  z
    .object({
      path: relativePath("a file path", 8),
      /** Bytes; null when unknown until the first fetch. */
      size: z.number().int().nonnegative().nullable(),
      /** Lower-case hex; null when unknown until the first fetch. */
      sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .nullable(),
      verify: z.enum(VERIFY_MODES),
      /** Fetched only with `--all-files` (e.g. full-precision weights). */
      optional: z.boolean().default(false),
      /**
       * The file comes from another hub repo (and name) than the model's own, e.g. whisper.cpp's
       * ggml weights (`ggerganov/whisper.cpp`, `ggml-tiny.en.bin`) installed beside the ONNX files
       * as `ggml-model.bin`; fetched from `{hub}/{repo}/resolve/{revision}/{path}`.
       */
      from: z
        .object({
          repo: relativePath("a hub repo", 2),
          revision: z.string().regex(/^[A-Za-z0-9._-]+$/),
          path: relativePath("a file path", 8),
        })
        .optional(),
      note: z.string().optional(),
    })
    .refine((f) => (f.verify === "sha256") === (f.sha256 !== null), {
      message: 'verify is "sha256" exactly when the sha256 is known',
    }),
);

const modelSchema = lazySchema(() =>
  z.object({
    /** Hub repo id and folder under the models directory, e.g. "Xenova/whisper-tiny.en". */
    id: relativePath("a model id", 2),
    task: z.enum(["automatic-speech-recognition", "text-classification", "feature-extraction"]),
    /** Installed by `earshot models fetch` without `--model`. */
    default: z.boolean().default(false),
    description: z.string().default(""),
    source: z.string().url(),
    revision: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/)
      .default("main"),
    /** SPDX id, or null when the upstream declares none (`license_note` says so). */
    license: z.string().nullable(),
    license_note: z.string().optional(),
    /** Where the sizes and sha256s come from (docs/models.md). */
    provenance: z.string().optional(),
    files: z.array(fileSchema).min(1),
  }),
);

const manifestSchema = lazySchema(() =>
  z.object({
    schema_version: z.literal(1),
    about: z.string().optional(),
    models: z.array(modelSchema),
  }),
);

export type ManifestFile = z.output<typeof fileSchema>;
export type ManifestModel = z.output<typeof modelSchema>;
export type Manifest = z.output<typeof manifestSchema>;

/**
 * Validates a parsed manifest.
 * @throws Error listing every problem with its JSON path
 */
export function parseManifest(json: unknown, source = "manifest"): Manifest {
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new Error(`${source} is not a valid model manifest:\n  ${lines.join("\n  ")}`);
  }
  const ids = parsed.data.models.map((m) => m.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new Error(`${source} lists model ${duplicate} twice`);
  return parsed.data;
}

/**
 * The manifest to use: `file` when given, else the bundled `models/manifest.json`.
 * @throws Error when the file cannot be read, is not JSON, or is not a valid manifest
 */
export async function loadManifest(file?: string): Promise<Manifest> {
  if (!file) return parseManifest(defaultManifestJson, "models/manifest.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new Error(`cannot read the manifest ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not JSON: ${(err as Error).message}`);
  }
  return parseManifest(json, file);
}

/**
 * The models a command acts on: those named (each must be in the manifest), else the
 * manifest's defaults.
 * @throws Error naming an unknown id and listing the known ones
 */
export function selectModels(manifest: Manifest, ids: readonly string[] = []): ManifestModel[] {
  if (ids.length === 0) return manifest.models.filter((m) => m.default);
  return ids.map((id) => {
    const model = manifest.models.find((m) => m.id === id);
    if (!model) throw new Error(`model ${id} is not in the manifest (known: ${manifest.models.map((m) => m.id).join(", ")})`);
    return model;
  });
}
