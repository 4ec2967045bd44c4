import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The server functions that draw SVG text, by the entry Next builds each from (`src/<entry>.ts`, traced
 * in `.next/server/<entry>.js.nft.json`): those whose requests reach a transform. fontconfig reads the
 * fonts from a path at the first text it lays out, so the build's tracer cannot see them, and each of
 * these needs next.config.mjs's outputFileTracingIncludes to carry them. The other functions build the
 * same services but never transform (pages, auth, cron, exports, health, metrics).
 */
export const SVG_TEXT_FUNCTIONS = [
  { entry: "pages/api/image-delivery", draws: "the image API's transforms" },
  {
    entry: "app/api/trpc/[trpc]/route",
    draws: "previews of a preset's operations, made of demo/photo.jpg, and uploads, decoded to be checked",
  },
] as const;

/** The font files assets/fonts.conf sends fontconfig to, relative to the project. */
export function bundledFontFiles(): string[] {
  const conf = readFileSync("assets/fonts.conf", "utf8");
  const dirs = [...conf.matchAll(/<dir prefix="relative">([^<]+)<\/dir>/g)].map((m) =>
    path.posix.join("assets", m[1]!),
  );
  return dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith(".ttf"))
      .map((name) => path.posix.join(dir, name)),
  );
}
