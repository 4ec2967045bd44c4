import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { LaterQueue } from "@/server/delivery/later-queue";
import type { Counters } from "@/server/coordination/counters";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import type { TransformScheduler } from "@/server/image";
import type { PlacedTransform } from "@/server/image/isolation/placed-transform";
import type { ResultStore } from "@/server/result-store/types";

export interface Metrics {
  /** After each image response. */
  observe(outcome: RequestOutcome): void;
  render(): Promise<string>;
  contentType: string;
}

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Prometheus metrics for one set of services (its own registry, so tests and several apps in one
 * process do not mix). Request metrics are observed per outcome; the rest is read at scrape time from
 * the scheduler and the process-wide event counters (Redis calls and failures, cache lookups, losses).
 */
export function createMetrics(deps: {
  counters: Counters;
  scheduler: TransformScheduler;
  /** Final answers waiting to be made after their interim ones (delivery/later-queue.ts). */
  later?: Pick<LaterQueue, "stats">;
  store?: ResultStore | null;
  /** Where placed transforms ran, by reason (null unless transforms are placed by input). */
  placed?: PlacedTransform["stats"] | null;
  /** The in-process limiter's windows (null with Redis, which keeps them). */
  limiterWindows?: (() => { addresses: number; others: number }) | null;
}): Metrics {
  const registry = new Registry();
  let processMetrics = false;
  const requests = new Counter({
    name: "optstuff_image_requests_total",
    help: "Image requests by request-log status and HTTP status",
    labelNames: ["status", "code"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "optstuff_image_request_duration_seconds",
    help: "Image request time, response ready",
    labelNames: ["cache"],
    buckets: SECONDS,
    registers: [registry],
  });
  const phases = new Histogram({
    name: "optstuff_image_phase_duration_seconds",
    help: "Time per phase: auth (key, signature, limits), fetch, queue (waiting for a transform slot), transform (decode, resize and encode: one libvips pipeline)",
    labelNames: ["phase"],
    buckets: SECONDS,
    registers: [registry],
  });
  const bytes = new Counter({
    name: "optstuff_image_sent_bytes_total",
    help: "Body bytes sent",
    registers: [registry],
  });
  new Gauge({
    name: "optstuff_transforms",
    help: "Transforms running and queued, and final answers waiting to be made after their interim ones (later)",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const { running, queued } = deps.scheduler.stats();
      this.set({ state: "running" }, running);
      this.set({ state: "queued" }, queued);
      // Final answers to make after their interim ones, not yet handed to the scheduler.
      if (deps.later) this.set({ state: "later" }, deps.later.stats().waiting);
    },
  });
  const placed = deps.placed;
  if (placed)
    new Gauge({
      name: "optstuff_transform_placements",
      help: "Transforms run in this process (where=in-process) and sent to a transform process, by reason, since start",
      labelNames: ["where", "reason"],
      registers: [registry],
      collect() {
        const { inProcess, isolated } = placed();
        this.set({ where: "in-process", reason: "" }, inProcess);
        for (const [reason, count] of Object.entries(isolated)) this.set({ where: "isolated", reason }, count);
      },
    });
  const windows = deps.limiterWindows;
  if (windows)
    new Gauge({
      name: "optstuff_ratelimit_windows",
      help: "Rate-limit windows the in-process limiter holds (client addresses are bounded by OPTSTUFF_ADDRESS_WINDOWS_MAX)",
      labelNames: ["kind"],
      registers: [registry],
      collect() {
        const { addresses, others } = windows();
        this.set({ kind: "address" }, addresses);
        this.set({ kind: "other" }, others);
      },
    });
  const store = deps.store;
  if (store) {
    new Gauge({
      name: "optstuff_result_store_bytes",
      help: "Bytes held by the result store (files: exact; S3: as of its last listing plus writes since)",
      registers: [registry],
      collect() {
        this.set(store.size().bytes);
      },
    });
    new Gauge({
      name: "optstuff_result_store_objects",
      help: "Results held by the result store",
      registers: [registry],
      collect() {
        this.set(store.size().objects);
      },
    });
  }
  fromCounters(registry, deps.counters);
  return {
    observe(outcome) {
      for (const [phase, ms] of Object.entries(outcome.phases ?? {})) phases.observe({ phase }, ms / 1000);
      // The final answer made after an interim one: its phases are work done, but it is no request.
      if (outcome.cache === "later") return;
      requests.inc({ status: outcome.status, code: String(outcome.httpStatus) });
      duration.observe({ cache: outcome.cache ?? "none" }, outcome.durationMs / 1000);
      bytes.inc(outcome.sentBytes ?? 0);
    },
    render() {
      // Process metrics (memory, event loop, GC) start with the first scrape: not every set of services is scraped.
      if (!processMetrics) collectDefaultMetrics({ register: registry });
      processMetrics = true;
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}

/** Event counters kept by the services, exposed as Prometheus counters under stable names. */
function fromCounters(registry: Registry, counters: Counters): void {
  const families: Array<{ name: string; help: string; label: string; prefix: string }> = [
    {
      name: "optstuff_config_cache_lookups_total",
      help: "Config lookups per tier (l1 in process, redis) and result",
      label: "lookup",
      prefix: "config_",
    },
    {
      name: "optstuff_redis_calls_total",
      help: "Redis commands and scripts issued, per operation (calls in one tick share a round trip)",
      label: "operation",
      prefix: "redis_calls_",
    },
    {
      name: "optstuff_results_total",
      help: "Image results by the tier that answered: l1 (in process), shared (another request's job), store (result store), transform (made here)",
      label: "tier",
      prefix: "result_tier_",
    },
    {
      name: "optstuff_result_store_failures_total",
      help: "Result store reads and writes that failed or missed their budget (the request went on)",
      label: "operation",
      prefix: "result_store_failure_",
    },
    {
      name: "optstuff_redis_failures_total",
      help: "Redis calls that failed or missed their budget, per use",
      label: "use",
      prefix: "redis_failure_",
    },
  ];
  for (const family of families) {
    new Counter({
      name: family.name,
      help: family.help,
      labelNames: [family.label],
      registers: [registry],
      collect() {
        this.reset();
        for (const [name, value] of Object.entries(counters.snapshot())) {
          if (name.startsWith(family.prefix)) this.inc({ [family.label]: name.slice(family.prefix.length) }, value);
        }
      },
    });
  }
  new Counter({
    name: "optstuff_events_total",
    help: "Other events: rate limits failed open, usage increments lost, request-log rows written, skipped or lost, activity writes",
    labelNames: ["event"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, value] of Object.entries(counters.snapshot())) {
        if (!families.some((f) => name.startsWith(f.prefix))) this.inc({ event: name }, value);
      }
    },
  });
}
