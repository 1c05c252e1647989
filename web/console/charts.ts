/**
 * @module web/console/charts
 * The dashboard's charts (uPlot), a separate script (`/assets/console-charts.js`) that the
 * console imports only on a dashboard page, so the first load stays small. Colours come from
 * the page's CSS variables, so charts follow light and dark mode; each chart is decorative for
 * screen readers (`aria-hidden`): the page gives every chart a table or summary line.
 */
import uPlot from "uplot";

/** One series: its name, values per x and a CSS colour variable such as `--chart-1`. */
export type Series = { label: string; values: number[]; color: string };

const DAY = 86_400;
const DATE = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" });

/** Seconds range of a time axis: the data's days, at least a week, half a day of margin. */
function timeRange(x: number[]): [number, number] {
  const hi = x.length ? Math.max(...x) : Date.now() / 1000;
  const lo = Math.min(x.length ? Math.min(...x) : hi, hi - 6 * DAY);
  return [lo - DAY / 2, hi + DAY / 2];
}

const charts = new WeakMap<HTMLElement, { plot: uPlot; observer: ResizeObserver; media: MediaQueryList; redraw: () => void }>();

function cssVar(el: Element, name: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim() || "#888";
}

/**
 * Draws (or redraws) a chart into `el`: lines over time, or bars over categories.
 * @param opts.x seconds since the epoch (lines) or category indexes (bars)
 * @param opts.labels category names for bars
 */
export function draw(el: HTMLElement, opts: { kind: "lines" | "bars"; x: number[]; series: Series[]; labels?: string[]; height?: number }): void {
  destroy(el);
  el.setAttribute("aria-hidden", "true");
  const build = () => {
    const axisColor = cssVar(el, "--muted");
    const grid = cssVar(el, "--border");
    const bars = opts.kind === "bars" ? uPlot.paths.bars!({ size: [0.6, 48] }) : undefined;
    const axis = { stroke: axisColor, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const plot = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: opts.height ?? 220,
        legend: { show: false },
        cursor: { show: opts.kind === "lines", drag: { x: false, y: false } },
        scales: {
          x: {
            time: opts.kind === "lines",
            // Bars: half a slot either side. Lines: at least a week, so one day is not a lone dot in years of axis.
            range: opts.kind === "bars" ? [-0.5, opts.x.length - 0.5] : timeRange(opts.x),
          },
          y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
        },
        axes: [
          opts.kind === "bars"
            ? { ...axis, splits: () => opts.x, values: (_u, splits) => splits.map((s) => opts.labels?.[s] ?? ""), gap: 4, size: 40 }
            : {
                ...axis,
                // One tick per day (or every few days), labelled by its UTC date, as the buckets are.
                splits: (u: uPlot) => {
                  const lo = Math.ceil((u.scales.x!.min ?? 0) / DAY) * DAY;
                  const hi = u.scales.x!.max ?? lo;
                  const step = DAY * Math.max(1, Math.ceil((hi - lo) / DAY / Math.max(2, Math.floor(u.width / 90))));
                  const out: number[] = [];
                  for (let t = lo; t <= hi; t += step) out.push(t);
                  return out;
                },
                values: (_u: uPlot, splits: number[]) => splits.map((t) => DATE.format(new Date(t * 1000))),
              },
          { ...axis, values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? String(s) : "")) },
        ],
        series: [
          {},
          ...opts.series.map((s) => {
            const color = cssVar(el, s.color);
            return opts.kind === "bars"
              ? { label: s.label, stroke: color, fill: color, width: 0, paths: bars, points: { show: false } }
              : { label: s.label, stroke: color, width: 2, points: { show: opts.x.length < 40, size: 5, fill: color } };
          }),
        ],
      },
      [opts.x, ...opts.series.map((s) => s.values)],
      el,
    );
    return plot;
  };
  let plot = build();
  const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: opts.height ?? 220 }));
  observer.observe(el);
  const media = matchMedia("(prefers-color-scheme: dark)");
  const redraw = () => {
    plot.destroy();
    plot = build();
    charts.set(el, { plot, observer, media, redraw });
  };
  media.addEventListener("change", redraw);
  charts.set(el, { plot, observer, media, redraw });
}

/** Removes the chart drawn into `el`, if any. */
export function destroy(el: HTMLElement): void {
  const c = charts.get(el);
  if (!c) return;
  c.observer.disconnect();
  c.media.removeEventListener("change", c.redraw);
  c.plot.destroy();
  charts.delete(el);
}
