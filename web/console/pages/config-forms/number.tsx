/** Configuration of a `number` question: minimum, maximum, step (all optional, DESIGN §6). */
import { NumberField, type ConfigProps } from "./shared.tsx";

export function NumberConfig(p: ConfigProps) {
  return (
    <div class="grid-3">
      <NumberField {...p} name="min" label="Minimum" field="min" />
      <NumberField {...p} name="max" label="Maximum" field="max" />
      <NumberField {...p} name="step" label="Step" field="step" />
    </div>
  );
}
