import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * `engines` is what Vercel picks a Node version from (the highest major it allows) and what npm warns
 * against: it must name exactly the majors CI runs the suite on (.ci/run: the machine's own Node, and
 * the ones it brings from npm), no untested one and no tested one left out.
 */
const { engines } = JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } };
const ci = readFileSync(".ci/run", "utf8");

function majorsAllowed(range: string): number[] {
  return range.split("||").map((part) => Number(/\^(\d+)\./.exec(part.trim())?.[1]));
}

describe("engines", () => {
  it("allows exactly the Node majors CI tests on", () => {
    const brought = [...ci.matchAll(/^NODE_[A-Z]+=(\d+)\.\d+\.\d+$/gm)].map((m) => Number(m[1]));
    expect(brought.length).toBeGreaterThanOrEqual(2);
    // The machine's own Node (20) runs the fresh-machine pass: the lowest allowed major.
    const allowed = majorsAllowed(engines.node);
    const lowest = Math.min(...allowed);
    expect(allowed).toEqual([...new Set([lowest, ...brought])].sort((a, b) => a - b));
    // Whichever pass this is, its Node is one engines allows.
    expect(allowed).toContain(Number(process.versions.node.split(".")[0]));
  });
});
