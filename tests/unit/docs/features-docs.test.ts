import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { operationRegistry } from "@/server/image";

/** The OptStuff column of docs/features.md's operations table: the registry names of its tokens. */
function listedTokens(): string[] {
  const text = readFileSync("docs/features.md", "utf8");
  const table = text.slice(text.indexOf("## Image operations"), text.indexOf("## Delivery and operation"));
  const cells = table
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| feature") && !line.startsWith("|---"))
    .map((line) => line.split("|")[2]!.trim());
  return cells.flatMap((cell) => [...cell.matchAll(/`([a-z]+)[^`]*`/g)].map((match) => match[1]!));
}

describe("docs/features.md", () => {
  it("lists every operation token of the registry, and only those", () => {
    const listed = listedTokens();
    const names = operationRegistry.map((spec) => spec.name);
    expect([...new Set(listed)].sort()).toEqual([...names].sort());
  });
});
