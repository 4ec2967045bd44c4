import { describe, expect, it } from "vitest";
import { createCounters } from "@/server/coordination/counters";
import { createTransformScheduler } from "@/server/image";
import { createMetrics } from "@/server/metrics/metrics";

const line = (text: string, name: string) =>
  Number(
    text
      .split("\n")
      .find((l) => l.startsWith(`${name} `))
      ?.split(" ")[1] ?? 0,
  );

describe("metrics of work done after an answer", () => {
  it("time the later encode's phases but count it as no request, no request duration and no bytes", async () => {
    const metrics = createMetrics({
      counters: createCounters(),
      scheduler: createTransformScheduler({ concurrency: 1 }),
    });
    const base = { status: "success", httpStatus: 200, durationMs: 40 } as const;
    metrics.observe({ ...base, requestId: "a", cache: "miss", sentBytes: 1000, phases: { transform: 30 } });
    metrics.observe({ ...base, requestId: "b", cache: "later", sentBytes: 0, phases: { transform: 400 } });
    const text = await metrics.render();
    expect(line(text, 'optstuff_image_requests_total{status="success",code="200"}')).toBe(1);
    expect(line(text, 'optstuff_image_phase_duration_seconds_count{phase="transform"}')).toBe(2);
    expect(text).not.toContain('cache="later"');
  });
});
