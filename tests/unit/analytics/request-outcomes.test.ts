import { describe, expect, it } from "vitest";
import { outcomeOf } from "@/server/usage/outcomes";
import { requestLogStatuses } from "@/server/errors";

describe("the outcome of a logged request", () => {
  it.each([
    ["success", "miss", "served"],
    ["success", "hit", "cached"],
    ["success", "store", "cached"],
    ["success", "shared", "cached"],
    ["success", "revalidated", "cached"],
    ["sig_invalid", "", "refused"],
    ["rate_limited", "", "refused"],
    ["too_large", "", "refused"],
    ["source_error", "", "failed"],
    ["timeout", "", "failed"],
    ["error", "", "failed"],
  ])("%s with cache %j is %s", (status, cache, outcome) => {
    expect(outcomeOf(status, cache)).toBe(outcome);
  });

  it("places every status the request log can hold, and a status it does not know as failed", () => {
    for (const status of requestLogStatuses) {
      expect(["served", "cached", "refused", "failed"]).toContain(outcomeOf(status, "miss"));
    }
    expect(outcomeOf("a-status-from-a-newer-release", "")).toBe("failed");
  });
});
