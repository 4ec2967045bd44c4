import { describe, expect, it } from "vitest";
import { TRANSFORM_WORKER } from "../../../scripts/build-transform-worker.mjs";
import { TRANSFORM_WORKER_ENTRY } from "@/server/image/isolation/settings";

describe("transform worker script", () => {
  it("is written where the services look for it", () => {
    expect(TRANSFORM_WORKER).toBe(TRANSFORM_WORKER_ENTRY);
  });
});
