import { describe, expect, it } from "vitest";
import { planAnswer, type InterimTarget } from "@/server/delivery/answer-plan";
import { parseOperations } from "@/server/image";

const FINAL = '"final"';
const interim: InterimTarget = {
  plan: { operations: parseOperations("w_800,f_webp"), accept: null, avif: false, quality: true },
  variant: "interim-variant",
  etag: '"interim"',
  storeKey: "interim-key",
  sourcePrefix: "prefix",
  sourceKey: "source",
  tags: [],
};

/** The plan, and how many times the planner read the store for an interim target. */
async function planned(ifNoneMatch: string | null, cold: InterimTarget | null) {
  let asked = 0;
  const plan = await planAnswer(ifNoneMatch, FINAL, async () => {
    asked++;
    return cold;
  });
  return { plan, asked };
}

describe("which answer a request gets", () => {
  it("a 304 for the final ETag, without reading the store", async () => {
    expect(await planned(FINAL, interim)).toEqual({ plan: { kind: "not-modified" }, asked: 0 });
    expect(await planned(`W/${FINAL}, "other"`, interim)).toEqual({ plan: { kind: "not-modified" }, asked: 0 });
  });

  it("the final answer when nothing is made later or it is already made", async () => {
    expect(await planned(null, null)).toEqual({ plan: { kind: "final" }, asked: 1 });
    expect(await planned('"interim"', null)).toEqual({ plan: { kind: "final" }, asked: 1 });
  });

  it("the interim answer while the final one is not made, a 304 for the interim ETag", async () => {
    expect(await planned(null, interim)).toEqual({ plan: { kind: "interim", interim }, asked: 1 });
    expect(await planned('"stale"', interim)).toEqual({ plan: { kind: "interim", interim }, asked: 1 });
    expect(await planned('"interim"', interim)).toEqual({ plan: { kind: "interim-not-modified", interim }, asked: 1 });
    expect(await planned("*", interim)).toEqual({ plan: { kind: "not-modified" }, asked: 0 });
  });
});
