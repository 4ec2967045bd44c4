/**
 * Regenerates what must never drift from the code: the operations table of docs/url-format.md, the
 * error tables of docs/errors.md, the variables tables of docs/self-hosting.md, the failure policy of
 * docs/redis-schema.md and .env.example. In
 * the documents only the text between the `<!-- name:start -->` / `<!-- name:end -->` markers is
 * rewritten; .env.example is written whole.
 *
 *   npx tsx scripts/generate-docs.ts           rewrites the documents
 *   npx tsx scripts/generate-docs.ts --check   exits 1 if one is out of date
 *
 * The tests in tests/unit/docs run the same pure functions, so a token or an error code added without
 * documentation fails the unit tests.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { updateErrorsDoc } from "./docs/errors";
import { GENERATOR } from "./docs/markdown";
import { updateRedisSchemaDoc } from "./docs/redis-schema";
import { renderEnvExample, updateSelfHostingDoc } from "./docs/settings";
import { updateUrlFormatDoc } from "./docs/url-format";

/** Each generated document (relative to the repository) and the pure function that brings it up to date. */
export const generatedDocs = {
  "docs/url-format.md": updateUrlFormatDoc,
  "docs/errors.md": updateErrorsDoc,
  "docs/self-hosting.md": updateSelfHostingDoc,
  "docs/redis-schema.md": updateRedisSchemaDoc,
  // Generated whole: whatever it held is replaced.
  ".env.example": () => renderEnvExample(),
} as const satisfies Record<string, (markdown: string) => string>;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function readDoc(doc: keyof typeof generatedDocs): string {
  return readFileSync(path.join(ROOT, doc), "utf8");
}

function main(args: readonly string[]): void {
  for (const [doc, update] of Object.entries(generatedDocs)) {
    const current = readFileSync(path.join(ROOT, doc), "utf8");
    const updated = update(current);
    if (updated === current) {
      console.log(`${doc} is up to date`);
    } else if (args.includes("--check")) {
      console.error(`${doc} is out of date: run npx tsx ${GENERATOR}`);
      process.exitCode = 1;
    } else {
      writeFileSync(path.join(ROOT, doc), updated);
      console.log(`${doc} updated`);
    }
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(path.resolve(entry)).href) main(process.argv.slice(2));
