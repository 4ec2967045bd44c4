import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * What each server function of the build would carry to a deployment, as Next's file tracer lists it
 * (`.next/server/**\/*.nft.json`). Paths resolved from the working directory at run time once made
 * the tracer take the whole project into every function: the embedded database's generated secrets
 * (.data/secrets.json) and the git history among 1,026 files each.
 */
const FORBIDDEN = /(^|\/)(\.data|\.git|\.ci|tests|docs|bench|artifacts|coverage|examples)\/|(^|\/)\.env($|\.)/;

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
    const carried = found.flatMap((trace) => {
      const { files } = JSON.parse(readFileSync(trace, "utf8")) as { files: string[] };
      return files
        .map((file) => path.relative(process.cwd(), path.resolve(path.dirname(trace), file)))
        .filter((file) => FORBIDDEN.test(file))
        .map((file) => `${path.relative(".next/server", trace)}: ${file}`);
    });
    expect(carried.slice(0, 20)).toEqual([]);
  });

  it("still carry what the functions read at run time: the migrations, and the fonts for SVG text", () => {
    const image = JSON.parse(readFileSync(".next/server/pages/api/image-delivery.js.nft.json", "utf8")) as {
      files: string[];
    };
    const files = image.files.map((file) => path.relative(process.cwd(), path.resolve(".next/server/pages/api", file)));
    expect(files.some((file) => file.startsWith("drizzle/") && file.endsWith(".sql"))).toBe(true);
    expect(files).toContain("assets/fonts.conf");
    expect(files).toContain("node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf");
    expect(files).toContain("node_modules/dejavu-fonts-ttf/ttf/DejaVuSerif-Bold.ttf");
  });
});
