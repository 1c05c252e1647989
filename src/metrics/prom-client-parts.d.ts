// Types for the parts of prom-client imported one by one (src/metrics/client.ts): the package
// declares only its index, which also loads cluster, pushgateway, summary and OpenTelemetry code
// the appliance does not use (~4 MB of idle RSS in the binary, bench/startup.ts).
declare module "prom-client/lib/registry" {
  const Registry: typeof import("prom-client").Registry;
  export = Registry;
}
declare module "prom-client/lib/counter" {
  const Counter: typeof import("prom-client").Counter;
  export = Counter;
}
declare module "prom-client/lib/gauge" {
  const Gauge: typeof import("prom-client").Gauge;
  export = Gauge;
}
declare module "prom-client/lib/histogram" {
  const Histogram: typeof import("prom-client").Histogram;
  export = Histogram;
}
declare module "prom-client/lib/defaultMetrics" {
  const collectDefaultMetrics: typeof import("prom-client").collectDefaultMetrics;
  export = collectDefaultMetrics;
}
