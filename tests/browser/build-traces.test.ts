import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bundledFontFiles, SVG_TEXT_FUNCTIONS } from "../support/svg-text-functions";

/**
 * What each server function of the build would carry to a deployment, as Next's file tracer lists it
 * (`.next/server/**\/*.nft.json`). Paths resolved from the working directory at run time once made
 * the tracer take the whole project into every function: the embedded database's generated secrets
 * (.data/secrets.json) and the git history among 1,026 files each.
 */
const FORBIDDEN = /(^|\/)(\.data|\.git|\.ci|tests|docs|bench|artifacts|coverage|examples)\/|(^|\/)\.env($|\.)/;

/** The files one trace lists, relative to the project. */
function traced(trace: string): string[] {
  const { files } = JSON.parse(readFileSync(trace, "utf8")) as { files: string[] };
  return files.map((file) => path.relative(process.cwd(), path.resolve(path.dirname(trace), file)));
}

function traces(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return traces(full);
    return entry.name.endsWith(".nft.json") ? [full] : [];
  });
}

describe("the build's function traces", () => {
  it("hold no data directory, secrets, environment files, git history, tests or docs", () => {
    if (!existsSync(".next/BUILD_ID")) throw new Error("Browser tests need a build: run `npm run build` first");
    const found = traces(".next/server");
    expect(found.length).toBeGreaterThan(10);
    const carried = found.flatMap((trace) =>
      traced(trace)
        .filter((file) => FORBIDDEN.test(file))
        .map((file) => `${path.relative(".next/server", trace)}: ${file}`),
    );
    expect(carried.slice(0, 20)).toEqual([]);
  });

  it.each(SVG_TEXT_FUNCTIONS.map((f) => [f.entry, f.draws] as const))(
    "still carry what %s reads at run time (%s): the migrations, the font configuration and every font it names",
    (entry) => {
      const files = traced(`.next/server/${entry}.js.nft.json`);
      expect(files.some((file) => file.startsWith("drizzle/") && file.endsWith(".sql"))).toBe(true);
      expect(files).toContain("assets/fonts.conf");
      const fonts = bundledFontFiles();
      expect(fonts).toContain("node_modules/dejavu-fonts-ttf/ttf/DejaVuSerif-Bold.ttf");
      expect(fonts.filter((font) => !files.includes(font))).toEqual([]);
    },
  );

  it("give the dashboard's API the photo its previews are made of", () => {
    expect(traced(".next/server/app/api/trpc/[trpc]/route.js.nft.json")).toContain("demo/photo.jpg");
  });
});
