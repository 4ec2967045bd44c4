import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import nextConfig from "../../../next.config.mjs";
import { bundledFontFiles, SVG_TEXT_FUNCTIONS } from "../../support/svg-text-functions";

/**
 * next.config.mjs's outputFileTracingIncludes, read without a build. Next matches each key as a glob
 * against a function's route, anywhere in it (`/api/image-delivery`, `/api/trpc/[trpc]`): a key that
 * matches nothing is ignored without a word. `/api/trpc/[trpc]` was such a key (`[trpc]` is a
 * character class there, one of t, r, p, c), and the dashboard's API function drew its previews' text
 * as boxes. Literal keys are checked here against the source files' entries
 * (`app/api/trpc/[trpc]/route`), which contain the routes; tests/browser/build-traces.test.ts checks
 * the same functions in a real build.
 */
const includes = nextConfig.outputFileTracingIncludes ?? {};

/** The entry of every server function: route handlers and pages of src/app, API routes of src/pages. */
function entries(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.posix.join(dir, name);
    if (statSync(full).isDirectory()) return entries(full);
    if (full.startsWith("src/app/") && !/\/(route|page)\.tsx?$/.test(full)) return [];
    return /\.tsx?$/.test(full) ? [full.slice("src/".length).replace(/\.tsx?$/, "")] : [];
  });
}
const ENTRIES = [...entries("src/app"), ...entries("src/pages")];

/** Whether an include pattern (a path, or a directory's `*.ext`) names the file. */
function covers(pattern: string, file: string): boolean {
  const star = /^(.*)\/\*(\.\w+)$/.exec(pattern);
  return star ? path.posix.dirname(file) === star[1] && file.endsWith(star[2]!) : pattern === file;
}

describe("what the build adds to the functions that draw SVG text", () => {
  it.each(Object.keys(includes))("keys %s by a literal part of one function's entry name", (key) => {
    expect(key, "a glob character in a key").not.toMatch(/[*?[\]{}()!+@]/);
    expect(ENTRIES.filter((entry) => entry.includes(key))).toHaveLength(1);
  });

  it.each(SVG_TEXT_FUNCTIONS.map((f) => [f.entry, f.draws] as const))(
    "gives %s (%s) the font configuration and every font it names",
    (entry) => {
      expect(ENTRIES).toContain(entry);
      const given = Object.entries(includes).flatMap(([key, files]) => (entry.includes(key) ? files : []));
      expect(given).toContain("assets/fonts.conf");
      const fonts = bundledFontFiles();
      expect(fonts.length).toBeGreaterThan(10);
      expect(fonts.filter((font) => !given.some((pattern) => covers(pattern, font)))).toEqual([]);
    },
  );
});
