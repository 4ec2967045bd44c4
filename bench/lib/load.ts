/** Runs `total` calls of `task` with `concurrency` in flight; returns per-call latencies and wall time. */
export async function drive(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<{ latencies: number[]; wallMs: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const t0 = performance.now();
      await task(i);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, wallMs: performance.now() - started };
}

/** A figure for tables: fixed decimals, a dash when there is none. */
export function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "–";
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

export interface Summary {
  label: string;
  concurrency: number;
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  peakRssMb: number;
  /** CPU milliseconds the serving process spent per request. */
  cpuMsPerRequest: number;
}

export function summarise(
  label: string,
  concurrency: number,
  run: { latencies: number[]; wallMs: number },
  peakRss: number,
  cpuMs: number,
): Summary {
  return {
    label,
    concurrency,
    requests: run.latencies.length,
    rps: run.latencies.length / (run.wallMs / 1000),
    p50: percentile(run.latencies, 50),
    p95: percentile(run.latencies, 95),
    p99: percentile(run.latencies, 99),
    peakRssMb: peakRss / 1024 / 1024,
    cpuMsPerRequest: cpuMs / run.latencies.length,
  };
}
