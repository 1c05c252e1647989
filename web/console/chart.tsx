/**
 * @module web/console/chart
 * A uPlot chart as a Preact component, for the dashboard and the Themes view. uPlot lives in a
 * separate script (`/assets/console-charts.js`, charts.ts) loaded on first use, so the console's
 * first load stays small. Charts are decorative for screen readers: the caller gives a summary
 * line or a table.
 */
import { useEffect, useRef } from "preact/hooks";
import type { Series } from "./charts.ts";

declare const __CHARTS_VERSION__: string;

type ChartsModule = typeof import("./charts.ts");
let chartsModule: Promise<ChartsModule> | null = null;

/** Loads the chart script and its stylesheet once (same origin, hashed URLs). */
function loadCharts(): Promise<ChartsModule> {
  const version = typeof __CHARTS_VERSION__ === "string" ? __CHARTS_VERSION__ : "dev";
  if (!document.querySelector("link[data-charts]")) {
    const css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = `/assets/console-charts.css?v=${version}`;
    css.dataset.charts = "1";
    document.head.append(css);
  }
  // Built at run time (this origin), so the bundler leaves the import to the browser.
  const url = `${location.origin}/assets/console-charts.js?v=${version}`;
  chartsModule ??= import(/* not bundled: a separate asset */ url) as Promise<ChartsModule>;
  return chartsModule;
}

/**
 * A uPlot chart: lines over time (x in seconds since the epoch) or bars over categories (x the
 * indexes, `labels` their names); `height` in CSS pixels (default 220).
 */
export function Chart(props: { kind: "lines" | "bars"; x: number[]; series: Series[]; labels?: string[]; height?: number }) {
  const ref = useRef<HTMLDivElement>(null);
  const key = JSON.stringify(props);
  useEffect(() => {
    let live = true;
    const el = ref.current!;
    loadCharts().then(
      (m) => live && m.draw(el, props),
      () => undefined,
    );
    return () => {
      live = false;
      chartsModule?.then(
        (m) => m.destroy(el),
        () => undefined,
      );
    };
  }, [key]);
  return <div class="chart" ref={ref} style={{ minHeight: `${props.height ?? 220}px` }} />;
}
