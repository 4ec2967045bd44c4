/**
 * Regenerates the two tables of docs/url-format.md that must never drift from the code: the operations
 * table (from operationRegistry) and the error table (from errorCatalogue plus the `when` column below).
 * Only the text between the `<!-- name:start -->` / `<!-- name:end -->` markers is rewritten.
 *
 *   npx tsx scripts/generate-url-format-docs.ts           rewrites docs/url-format.md
 *   npx tsx scripts/generate-url-format-docs.ts --check   exits 1 if the file is out of date
 *
 * tests/unit/docs/url-format-docs.test.ts runs the same pure function, so a token or an error code
 * added without documentation fails the unit tests.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { deliveryErrors as errorCatalogue } from "@/server/errors";
import { operationRegistry, type OperationSpec } from "@/server/image";

export const URL_FORMAT_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../docs/url-format.md");

const GENERATOR = "scripts/generate-url-format-docs.ts";

/**
 * When each error is answered, for the error table. Keyed by code: the compiler refuses a missing or
 * stale key here, and renderErrorTable throws at run time too (the unit tests run without tsc).
 */
export const errorWhen = {
  BAD_REQUEST: "The path is not `/{project}/{operations}/{source}`, the operations segment is empty, or `exp` is not 1–12 digits.",
  UNKNOWN_OPERATION: "A token name is not in the operations table; the message names the token.",
  INVALID_OPERATION:
    "A token's value is malformed or out of range, a token is empty, there are more than 64 tokens, or `c_` starts outside the image; the message names the token and its syntax.",
  INVALID_SOURCE:
    "The source is empty, starts with `/`, has control characters, another scheme than http/https, credentials, an unparseable host or port, or a `local/` path with an empty, `.` or `..` segment or a backslash.",
  MISSING_CREDENTIALS: "`key` or `sig` is absent or empty.",
  INVALID_KEY: "`key` is not `pk_` + 22 base64url characters (checked before any lookup), or no key has it.",
  KEY_REVOKED: "The key was revoked (immediate).",
  KEY_EXPIRED: "The key's expiry date has passed.",
  KEY_PROJECT_MISMATCH: "The key belongs to a project whose slug is not the URL's `{projectSlug}`.",
  SIGNATURE_INVALID: "`sig` does not match the payload (wrong secret, or the operations, source or `exp` changed).",
  REFERER_NOT_ALLOWED: "The project has a referer allowlist and the `Referer` is missing, unparseable or not on it.",
  SOURCE_NOT_ALLOWED:
    "The source is not on the project's allowed sources, is `local/` with no local root or escapes it, or its host name or any resolved address is forbidden.",
  SIGNATURE_EXPIRED: "The signature is valid but `exp` is not in the future.",
  SOURCE_NOT_FOUND: "The origin answered 404, or the local file does not exist or is not a regular file.",
  SOURCE_GONE: "The origin answered 410.",
  SOURCE_TOO_LARGE: "The declared, streamed or on-disk size is over `OPTSTUFF_MAX_SOURCE_BYTES`.",
  IMAGE_TOO_LARGE:
    "Width × height × decoded frames is over `OPTSTUFF_MAX_INPUT_PIXELS`, the frames are over `OPTSTUFF_MAX_FRAMES`, or the output is too large for its format.",
  UNSUPPORTED_IMAGE:
    "Empty, not an image, or a format other than JPEG, PNG, WebP, GIF, AVIF, TIFF, SVG (e.g. HEIC); or an SVG that would be passed through but carries active content or is gzipped.",
  IMAGE_DECODE_FAILED: "The bytes claim a supported format but do not decode (truncated, corrupt).",
  RATE_LIMITED: "A per-key minute or day window is full, or this client address failed authentication too often this minute. With Retry-After and X-RateLimit-Limit, -Remaining, -Reset.",
  SOURCE_FAILED:
    "DNS failed, no address connected, TLS failed, the origin answered another status than 200/404/410 or a compressed body, or the connection broke.",
  SOURCE_REDIRECT_FORBIDDEN:
    "A redirect leads to a forbidden scheme, name or address, carries credentials, goes from https to http, or exceeds `OPTSTUFF_MAX_REDIRECTS`.",
  OVERLOADED: "Every transform slot is busy and the queue (`OPTSTUFF_TRANSFORM_QUEUE`) is full; sent with `Retry-After`.",
  NOT_READY: "Reserved; not raised by the image route in this version.",
  SOURCE_TIMEOUT: "The whole fetch (DNS, connect, headers, body, every redirect) exceeded `OPTSTUFF_FETCH_TIMEOUT_MS`.",
  TRANSFORM_TIMEOUT: "Processing exceeded `OPTSTUFF_TRANSFORM_TIMEOUT_MS`.",
  INTERNAL: "A bug, or an API-key secret that no configured master secret opens. The body never carries the cause.",
} as const satisfies Record<keyof typeof errorCatalogue, string>;

export interface CatalogueEntry {
  status: number;
  message: string;
  log: string;
  publicCode?: string;
}

type OperationDoc = Pick<OperationSpec, "name" | "syntax" | "description">;

/** Table cells: a `|` must be escaped even inside a code span, and a cell is one line. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}

function code(text: string): string {
  return `\`${text}\``;
}

function generatedNote(source: string): string {
  return `<!-- Generated from ${source} by ${GENERATOR}; do not edit by hand. -->`;
}

export function renderOperationsTable(registry: readonly OperationDoc[]): string {
  const rows = registry.map((op) => `| ${code(cell(op.name))} | ${code(cell(op.syntax))} | ${cell(op.description)} |`);
  return [generatedNote("operationRegistry (src/server/image/operations)"), "", "| token | syntax | effect |", "|---|---|---|", ...rows].join("\n");
}

export function renderErrorTable(
  catalogue: Readonly<Record<string, CatalogueEntry>>,
  when: Readonly<Record<string, string>>,
): string {
  const codes = Object.keys(catalogue);
  const undocumented = codes.filter((c) => !when[c]?.trim());
  if (undocumented.length > 0) {
    throw new Error(`${GENERATOR}: add a \`when\` description for ${undocumented.join(", ")} to errorWhen`);
  }
  const stale = Object.keys(when).filter((c) => !(c in catalogue));
  if (stale.length > 0) throw new Error(`${GENERATOR}: errorWhen describes unknown code(s) ${stale.join(", ")}`);

  // Stable sort: codes of one status keep the catalogue's order.
  const ordered = codes
    .map((name) => ({ name, entry: catalogue[name]! }))
    .sort((a, b) => a.entry.status - b.entry.status);
  const rows = ordered.map(({ name, entry }) => {
    const shown = entry.publicCode ? `${code(entry.publicCode)} (cause ${code(name)}, not sent)` : code(name);
    return `| ${entry.status} | ${shown} | ${cell(entry.message)} | ${cell(when[name]!)} | ${code(entry.log)} |`;
  });
  return [
    generatedNote("errorCatalogue (src/server/errors.ts)"),
    "",
    "| status | `code` | `error` (default) | when | request log |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** Replaces what lies between `<!-- name:start -->` and `<!-- name:end -->`, which must each occur once. */
export function replaceSection(markdown: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from === -1 || to === -1 || to < from || markdown.indexOf(start, from + 1) !== -1 || markdown.indexOf(end, to + 1) !== -1) {
    throw new Error(`${GENERATOR}: expected exactly one ${start} … ${end} pair`);
  }
  // The blank line keeps the end marker from being read as part of the table.
  return `${markdown.slice(0, from + start.length)}\n${body}\n\n${markdown.slice(to)}`;
}

/** The whole document with both generated sections brought up to date. Pure: no file access. */
export function updateUrlFormatDoc(markdown: string): string {
  const withOperations = replaceSection(markdown, "operations", renderOperationsTable(operationRegistry));
  return replaceSection(withOperations, "errors", renderErrorTable(errorCatalogue, errorWhen));
}

function main(args: readonly string[]): void {
  const current = readFileSync(URL_FORMAT_DOC, "utf8");
  const updated = updateUrlFormatDoc(current);
  const relative = path.relative(process.cwd(), URL_FORMAT_DOC);
  if (updated === current) {
    console.log(`${relative} is up to date`);
  } else if (args.includes("--check")) {
    console.error(`${relative} is out of date: run npx tsx ${GENERATOR}`);
    process.exitCode = 1;
  } else {
    writeFileSync(URL_FORMAT_DOC, updated);
    console.log(`${relative} updated`);
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(path.resolve(entry)).href) main(process.argv.slice(2));
