import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { keySpecs, redisKeys } from "@/server/coordination/keys";

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
});
