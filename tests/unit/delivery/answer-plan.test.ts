import { describe, expect, it } from "vitest";
import { planAnswer } from "@/server/delivery/answer-plan";
import type { FinalTarget, InterimTarget } from "@/server/delivery/answer-targets";
import { parseOperations } from "@/server/image";

const final: FinalTarget = {
  kind: "final",
  operations: parseOperations("w_800,f_auto,q_auto"),
  accept: null,
  variant: "final-variant",
  key: "final-key",
  etag: '"final"',
  maxSeconds: 31_536_000,
  immutable: true,
};
const interim: InterimTarget = {
  kind: "interim",
  operations: parseOperations("w_800,f_webp"),
  accept: null,
  plan: { operations: parseOperations("w_800,f_webp"), accept: null, avif: false, quality: true },
  variant: "interim-variant",
  key: "interim-key",
  etag: '"interim"',
  maxSeconds: 60,
};

/** The plan, and which keys the planner asked the store about. */
async function planned(ifNoneMatch: string | null, withInterim: InterimTarget | null, made = false) {
  const asked: string[] = [];
  const plan = await planAnswer(ifNoneMatch, { final, interim: withInterim && (() => withInterim) }, async (key) => {
    asked.push(key);
    return made;
  });
  return { plan: `${plan.kind} ${plan.target.kind}`, asked };
}

describe("which answer a request gets", () => {
  it("a 304 for the final ETag, without reading the store", async () => {
    expect(await planned('"final"', interim)).toEqual({ plan: "not-modified final", asked: [] });
    expect(await planned('W/"final", "other"', interim)).toEqual({ plan: "not-modified final", asked: [] });
    expect(await planned("*", interim)).toEqual({ plan: "not-modified final", asked: [] });
  });

  it("the final answer when nothing is made later, without reading the store", async () => {
    expect(await planned(null, null)).toEqual({ plan: "produce final", asked: [] });
    expect(await planned('"interim"', null)).toEqual({ plan: "produce final", asked: [] });
  });

  it("the final answer when its result is already made, whatever the client holds", async () => {
    expect(await planned(null, interim, true)).toEqual({ plan: "produce final", asked: ["final-key"] });
    expect(await planned('"interim"', interim, true)).toEqual({ plan: "produce final", asked: ["final-key"] });
  });

  it("the interim answer while the final one is not made, a 304 for the interim ETag", async () => {
    expect(await planned(null, interim)).toEqual({ plan: "produce interim", asked: ["final-key"] });
    expect(await planned('"stale"', interim)).toEqual({ plan: "produce interim", asked: ["final-key"] });
    expect(await planned('"interim"', interim)).toEqual({ plan: "not-modified interim", asked: ["final-key"] });
  });

  it("names the interim target only for a cold request", async () => {
    let named = 0;
    const targets = { final, interim: () => (named++, interim) };
    await planAnswer('"final"', targets, async () => false);
    await planAnswer(null, targets, async () => true);
    expect(named).toBe(0);
    await planAnswer(null, targets, async () => false);
    expect(named).toBe(1);
  });
});
