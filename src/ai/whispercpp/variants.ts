/**
 * @module ai/whispercpp/variants
 * The CPU variants of the whisper.cpp addon: how scripts/build-whisper.ts builds each one (ggml's
 * CMake switches, GGML_NATIVE off so the file runs on any CPU that has the listed features) and
 * which one this process can run, read from the CPU flags in /proc/cpuinfo.
 */
import fs from "node:fs";

/** One build of the addon. */
export type WhisperVariant = {
  /** `linux-x64-avx512`, `linux-x64-avx2`, `linux-x64-baseline`, `linux-arm64`. */
  id: string;
  /** The file under native/whisper/out/ (and embedded in dist/earshot). */
  file: string;
  arch: "x64" | "arm64";
  /** /proc/cpuinfo flags the code needs (x86: the `flags` line; arm64: none beyond the ISA). */
  cpuFlags: string[];
  cmakeFlags: string[];
};

const X86_OFF = ["-DGGML_AVX512=OFF", "-DGGML_AVX_VNNI=OFF", "-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF"];
const AVX2 = ["-DGGML_NATIVE=OFF", "-DGGML_SSE42=ON", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON", "-DGGML_BMI2=ON"];
const AVX2_FLAGS = ["sse4_2", "avx", "avx2", "fma", "f16c", "bmi2"];

/** Best first: the first variant whose flags the CPU has is the one loaded. */
export const VARIANTS: readonly WhisperVariant[] = [
  {
    // Zen 4 and later, Sapphire Rapids and later: whisper.cpp's own CLI built for such a CPU
    // (GGML_NATIVE) uses AVX-512, and the AVX2 build was 8–14 % slower than it (docs/decisions/asr-engine.md).
    id: "linux-x64-avx512",
    file: "linux-x64-avx512.node",
    arch: "x64",
    cpuFlags: [...AVX2_FLAGS, "avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw", "avx512vbmi", "avx512_vnni", "avx512_bf16"],
    cmakeFlags: [
      ...AVX2,
      "-DGGML_AVX512=ON",
      "-DGGML_AVX512_VBMI=ON",
      "-DGGML_AVX512_VNNI=ON",
      "-DGGML_AVX512_BF16=ON",
      "-DGGML_AVX_VNNI=OFF",
      "-DGGML_AMX_TILE=OFF",
      "-DGGML_AMX_INT8=OFF",
    ],
  },
  {
    id: "linux-x64-avx2",
    file: "linux-x64-avx2.node",
    arch: "x64",
    cpuFlags: AVX2_FLAGS,
    cmakeFlags: [...AVX2, ...X86_OFF],
  },
  {
    id: "linux-x64-baseline",
    file: "linux-x64-baseline.node",
    arch: "x64",
    // SSE4.2 is also the floor of Bun's own x64 baseline runtime.
    cpuFlags: ["sse4_2"],
    cmakeFlags: [
      "-DGGML_NATIVE=OFF",
      "-DGGML_SSE42=ON",
      "-DGGML_AVX=OFF",
      "-DGGML_AVX2=OFF",
      "-DGGML_FMA=OFF",
      "-DGGML_F16C=OFF",
      "-DGGML_BMI2=OFF",
      ...X86_OFF,
    ],
  },
  { id: "linux-arm64", file: "linux-arm64.node", arch: "arm64", cpuFlags: [], cmakeFlags: ["-DGGML_NATIVE=OFF"] },
];

/** The CPU's feature flags (x86 `flags` / arm `Features` line of /proc/cpuinfo); empty when unreadable. */
export function cpuFlags(cpuinfo?: string): Set<string> {
  let text = cpuinfo;
  if (text === undefined) {
    try {
      text = fs.readFileSync("/proc/cpuinfo", "utf8");
    } catch {
      return new Set();
    }
  }
  const line = /^(?:flags|Features)\s*:(.*)$/m.exec(text)?.[1] ?? "";
  return new Set(line.trim().split(/\s+/).filter(Boolean));
}

/**
 * The best variant this process can run: same architecture, every needed CPU flag present.
 * @param arch `process.arch`; @param flags from {@link cpuFlags}
 * @returns null when none fits (e.g. an x86-64 CPU without SSE4.2, or another architecture)
 */
export function pickVariant(arch: string = process.arch, flags: Set<string> = cpuFlags()): WhisperVariant | null {
  return VARIANTS.find((v) => v.arch === arch && v.cpuFlags.every((f) => flags.has(f))) ?? null;
}
