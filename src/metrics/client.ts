/**
 * @module metrics/client
 * The parts of prom-client Earshot uses, imported one by one: its index also evaluates the cluster
 * aggregator, the push gateway, summaries and OpenTelemetry, which cost ~4 MB of idle RSS in the
 * binary (bench/startup.ts) for nothing used here. Types come from the package's own declarations.
 */
import Counter from "prom-client/lib/counter";
import Gauge from "prom-client/lib/gauge";
import Histogram from "prom-client/lib/histogram";
import Registry from "prom-client/lib/registry";

export { Counter, Gauge, Histogram, Registry };
export type { Counter as CounterT, Gauge as GaugeT, Histogram as HistogramT, Registry as RegistryT } from "prom-client";
