import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ProjectConfig } from "@/server/config-cache/model";
import { NO_PURGES } from "@/server/config-cache/model";
import { createOperationsPreview, PREVIEW_SAMPLE } from "@/server/delivery/preview-operations";
import { DEFAULT_TRANSFORM_LIMITS, type JobOptions, type TransformScheduler } from "@/server/image";
import { MAX_ENCODES } from "@/server/image/quality/auto-quality";

const project: ProjectConfig = {
  id: "p1",
  teamId: "t1",
  account: "account:u1",
  slug: "site",
  allowedSourceHosts: [],
  allowedRefererHosts: [],
  cache: NO_PURGES,
  presets: {},
  presetsOnly: false,
  defaultQuality: null,
  watermark: null,
  fallback: null,
  buckets: {},
};

describe("a preview's turn in the transform scheduler", () => {
  it("is the share of the account that owns the team, weighed by what its operations cost", async () => {
    const runs: Array<{ tenant: string; options?: JobOptions }> = [];
    const scheduler = {
      run: (tenant: string, job: (priority: "normal") => Promise<unknown>, options?: JobOptions) => {
        runs.push({ tenant, options });
        return job("normal");
      },
    } as unknown as TransformScheduler;
    const preview = createOperationsPreview({
      config: { getProject: async () => project },
      projectImages: async () => Buffer.alloc(0),
      scheduler,
      transform: async (_input, ops) => ({
        body: Buffer.from(ops.info ? JSON.stringify({ format: "jpeg", width: 10, height: 10 }) : "x"),
        format: "webp",
        contentType: "image/webp",
        width: 10,
        height: 10,
        negotiated: false,
      }),
      limits: DEFAULT_TRANSFORM_LIMITS,
      samplePath: path.resolve(PREVIEW_SAMPLE),
    });
    await preview("p1", { width: 100, qualityTarget: "good" });
    // The sample's own facts are read once under a share of their own; the preview under the account's.
    expect(runs.at(-1)).toEqual({ tenant: "account:u1", options: { cost: 1 + MAX_ENCODES } });
    expect(runs.some((run) => run.tenant === "p1" || run.tenant === "t1")).toBe(false);
  });
});
