import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { failurePolicy } from "@/server/coordination/failure-policy";
import { keySpecs, redisKeys } from "@/server/coordination/keys";
import { renderFailurePolicyTable, updateRedisSchemaDoc } from "../../../scripts/docs/redis-schema";

const doc = readFileSync(new URL("../../../docs/redis-schema.md", import.meta.url), "utf8");

describe("docs/redis-schema.md", () => {
  it.each(Object.entries(keySpecs))("documents the %s key with its prefix", (builder, spec) => {
    const row = doc.split("\n").find((line) => line.startsWith(`| \`${builder}\` |`));
    expect(row, `no table row for ${builder}`).toBeDefined();
    expect(row).toContain(spec.prefix.replace(/:$/, ""));
  });

  it("has a builder for every documented key and a spec for every builder", () => {
    const documented = [...doc.matchAll(/^\| `(\w+)` \| `/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual(Object.keys(keySpecs).sort());
    const builders = Object.keys(redisKeys).filter((name) => name !== "rateLimitIdentifier");
    expect(builders.sort()).toEqual(Object.keys(keySpecs).sort());
  });

  it("holds the failure policy as generated, a row per use with its budget", () => {
    expect(updateRedisSchemaDoc(doc)).toBe(doc);
    const table = renderFailurePolicyTable();
    for (const [use, policy] of Object.entries(failurePolicy)) {
      const row = table.split("\n").find((line) => line.startsWith(`| \`${use}\` |`));
      expect(row, use).toContain(policy.onFailure.slice(0, 20));
      expect(row, use).toContain(policy.blocking ? "| waits |" : "| does not wait |");
    }
    expect(renderFailurePolicyTable({ slow: { timeoutMs: 2000, blocking: true, onFailure: "a | b" } })).toContain(
      "| `slow` | 2 s | waits | a \\| b |",
    );
  });
});
