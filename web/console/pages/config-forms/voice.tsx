/** Configuration of a `voice` question: longest recording, AI evaluation (DESIGN §6). */
import { Check } from "../question-fields.tsx";
import { NumberField, type ConfigProps } from "./shared.tsx";

export function VoiceConfig(p: ConfigProps) {
  return (
    <div class="grid-2">
      <NumberField {...p} name="max_duration" label="Longest recording (seconds)" field="maxDuration" min={1} max={600} />
      <Check label="AI evaluation (transcript insights)" checked={p.draft.aiEvaluation} onChange={(v) => p.onChange({ aiEvaluation: v })} />
    </div>
  );
}

/** Configuration of a `voice_text_fallback` question: longest recording, most characters typed. */
export function VoiceTextConfig(p: ConfigProps) {
  return (
    <div class="grid-2">
      <NumberField {...p} name="max_duration" label="Longest recording (seconds)" field="maxDuration" min={1} max={600} />
      <NumberField {...p} name="max_characters" label="Most characters typed" field="maxCharacters" min={1} />
    </div>
  );
}
