import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// vercel.json's per-function limits apply by file pattern: a pattern that matches no route file is
// silently ignored, and the function runs with the platform's defaults (the image route's 30 s budget
// and 1 GB were lost this way when it moved).
const { functions } = JSON.parse(readFileSync("vercel.json", "utf8")) as { functions: Record<string, unknown> };

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.posix.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

function matcher(pattern: string): RegExp {
  const source = pattern
    .split("**")
    .map((part) =>
      part
        .split("*")
        .map((text) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]*"),
    )
    .join(".*");
  return new RegExp(`^${source}$`);
}

describe("vercel.json functions", () => {
  it.each(Object.keys(functions))("%s names an existing route file", (pattern) => {
    const base = pattern.split("*")[0]!.replace(/\/[^/]*$/, "") || ".";
    const files = filesUnder(base).filter((file) => /\.(ts|tsx)$/.test(file));
    expect(files.filter((file) => matcher(pattern).test(file))).not.toEqual([]);
  });
});
