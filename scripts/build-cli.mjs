// Bundles the command line (scripts/optstuff.ts) into dist/optstuff.mjs, as build-transform-worker.mjs
// does for the processes the server forks: PGlite, sharp, jsdom and DOMPurify stay in node_modules.
// Written beside and renamed into place, so two commands starting at once never run half a file.
import { readdirSync, renameSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "./build-transform-worker.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const CLI_BUNDLE = path.join(ROOT, "dist/optstuff.mjs");
const ENTRY = "scripts/optstuff.ts";

/** What the bundle is made from: its sources, the settings that shape it, and the installed packages. */
const INPUTS = [ENTRY, "package.json", "tsconfig.json", "node_modules/.package-lock.json"];

export async function buildCli() {
  const temporary = `${CLI_BUNDLE}.${process.pid}.tmp`;
  await bundle(ROOT, ENTRY, temporary, ["@electric-sql/pglite"]);
  renameSync(temporary, CLI_BUNDLE);
  return CLI_BUNDLE;
}

/** The bundle exists and no input changed after it was made (a walk of src/, ~650 files, a few ms). */
export function cliIsCurrent() {
  const built = statSync(CLI_BUNDLE, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return false;
  const newer = (file) => (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) > built;
  if (INPUTS.some((input) => newer(path.join(ROOT, input)))) return false;
  return !readdirSync(path.join(ROOT, "src"), { recursive: true, withFileTypes: true }).some(
    (entry) => entry.isFile() && newer(path.join(entry.parentPath ?? entry.path, entry.name)),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`command line: ${await buildCli()}`);
}
