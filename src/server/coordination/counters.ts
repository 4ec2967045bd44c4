/** Process-wide event counters (Redis failures, fail-opens, lost increments), read by metrics and tests. */
export interface Counters {
  increment(name: string, by?: number): void;
  get(name: string): number;
  snapshot(): Record<string, number>;
}

export function createCounters(): Counters {
  const values = new Map<string, number>();
  return {
    increment(name, by = 1) {
      values.set(name, (values.get(name) ?? 0) + by);
    },
    get: (name) => values.get(name) ?? 0,
    snapshot: () => Object.fromEntries(values),
  };
}
