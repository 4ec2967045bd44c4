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

/**
 * The oldest Node each `engines` line allows must satisfy every package `npm ci` installs: otherwise
 * the README's first command opens with EBADENGINE (@axe-core/playwright 4.14 needs 22.12, jsdom's
 * parsers 20.19), and the promise is not kept on the versions it names.
 */
describe("engines against the lockfile", () => {
  const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
    packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } | string[] }>;
  };

  it("promises no Node that a package npm ci installs refuses", () => {
    const oldest = engines.node.split("||").map((part) => floorOf(part.trim()));
    const refusals = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const wanted = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!path || entry.optional || !wanted) return [];
      return oldest
        .filter((node) => !satisfies(node, wanted))
        .map(
          (node) => `${path.replace(/^.*node_modules\//, "")}@${entry.version} wants ${wanted}, not ${node.join(".")}`,
        );
    });
    expect(refusals).toEqual([]);
  });

  it("reads ranges as npm does", () => {
    expect(satisfies([20, 9, 0], "^20.19.0 || ^22.12.0 || >=24.0.0")).toBe(false);
    expect(satisfies([22, 13, 0], "^20.19.0 || ^22.12.0 || >=24.0.0")).toBe(true);
    expect(satisfies([20, 19, 0], ">=22.12.0")).toBe(false);
    expect(satisfies([24, 0, 0], "^20.12||^22.13||>=24.0")).toBe(true);
    expect(satisfies([20, 19, 0], "20 || >=22")).toBe(true);
    expect(satisfies([21, 0, 0], "20 || >=22")).toBe(false);
    expect(satisfies([20, 19, 0], ">=6 <7 || >= 8")).toBe(true);
    expect(satisfies([20, 19, 0], ">=v12.22.7")).toBe(true);
    expect(satisfies([22, 13, 0], "~22.12.0")).toBe(false);
    expect(satisfies([20, 19, 0], "*")).toBe(true);
  });
});

type Version = [number, number, number];

/** The lowest version `^X.Y.Z` allows: engines names each line so (the test above checks its majors). */
function floorOf(caret: string): Version {
  const match = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(caret);
  if (!match) throw new Error(`engines: write each line as ^X.Y.Z, not ${caret}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** node-semver's range grammar as engines fields use it: `||` of space-separated comparators. */
function satisfies(version: Version, range: string): boolean {
  return range.split("||").some((set) =>
    set
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
      .split(/\s+/)
      .every((comparator) => matches(version, comparator)),
  );
}

function matches(version: Version, comparator: string): boolean {
  const [, op = "", text = ""] = /^(>=|<=|>|<|=|\^|~)?v?(.*)$/.exec(comparator) ?? [];
  const parts = text
    .split(".")
    .filter((part) => /^\d+$/.test(part))
    .map(Number);
  if (parts.length === 0) return true; // "*", "x"
  const low = [parts[0]!, parts[1] ?? 0, parts[2] ?? 0] as Version;
  // The first version past the range: the next major for ^ (or a bare major), the next minor for ~
  // and a bare major.minor.
  const next = (index: number): Version =>
    [0, 1, 2].map((i) => (i < index ? low[i]! : i === index ? low[i]! + 1 : 0)) as Version;
  const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  const within = (from: Version, to: Version) => compare(version, from) >= 0 && compare(version, to) < 0;
  switch (op) {
    case ">=":
      return compare(version, low) >= 0;
    case ">":
      return compare(version, low) > 0;
    case "<=":
      return compare(version, low) <= 0;
    case "<":
      return compare(version, low) < 0;
    case "^":
      return within(low, next(low[0] > 0 || parts.length === 1 ? 0 : 1));
    case "~":
      return within(low, next(parts.length === 1 ? 0 : 1));
    default:
      return parts.length === 3 ? compare(version, low) === 0 : within(low, next(parts.length - 1));
  }
}
