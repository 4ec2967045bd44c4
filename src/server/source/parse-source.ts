import { AppError } from "@/server/errors";
import type { SourceLocation } from "./types";

const LOCAL_PREFIX = "local/";
const BUCKET_PREFIX = "s3/";
/** As the dashboard accepts aliases: lower-case letters, digits and dashes. */
const BUCKET_ALIAS = /^[a-z0-9][a-z0-9-]{0,31}$/;
// `https:/host` (one slash, as some proxies and path joins collapse `//`) or `https://host`.
const HTTP_SCHEME = /^(https?):\/\/?(?!\/)/i;
// Any other `scheme:` (`ftp:`, `file:`, `data:`, a third slash…) that is not really `host:port`.
const OTHER_SCHEME = /^[a-z][a-z0-9+.-]*:(?!\d+(?:[/?#]|$))/i;

/**
 * Turns the `{source}` part of an image URL (already percent-decoded once by the route, segments
 * joined with `/`) into a location (contract §1). Throws INVALID_SOURCE for anything else.
 *
 * Remote sources go through the WHATWG URL parser, which canonicalises odd IPv4 spellings
 * (`2130706433`, `0x7f.1`, `127.1`) to dotted form and IDN hosts to punycode, so every policy check
 * downstream sees one spelling. The path's existing percent-encoding is kept as is.
 */
export function parseSource(raw: string): SourceLocation {
  if (raw === "local" || raw.startsWith(LOCAL_PREFIX)) return parseLocal(raw.slice(LOCAL_PREFIX.length));
  if (raw === "s3" || raw.startsWith(BUCKET_PREFIX)) return parseBucket(raw.slice(BUCKET_PREFIX.length));
  return { kind: "remote", url: parseRemote(raw) };
}

function parseRemote(raw: string): URL {
  const explicit = HTTP_SCHEME.exec(raw);
  if (!explicit && OTHER_SCHEME.test(raw)) throw invalid("unsupported scheme (only http and https)", raw);
  const candidate = explicit ? `${explicit[1]?.toLowerCase()}://${raw.slice(explicit[0].length)}` : `https://${raw}`;
  if (authorityOf(candidate).includes("@")) throw invalid("credentials in the source URL", raw);

  let url: URL;
  try {
    url = new URL(candidate);
  } catch (cause) {
    throw new AppError("INVALID_SOURCE", { detail: `unparseable source URL: ${raw}`, cause });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("only http and https", raw);
  if (url.username !== "" || url.password !== "") throw invalid("credentials in the source URL", raw);
  if (url.hostname === "") throw invalid("missing host", raw);
  return url;
}

// The authority as WHATWG reads it for http(s): up to the first `/`, `\`, `?` or `#`. Checked on the
// text because the parser silently drops an empty userinfo (`https://@host`).
function authorityOf(candidate: string): string {
  const rest = candidate.slice(candidate.indexOf("//") + 2);
  const end = rest.search(/[/\\?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

/**
 * `local/<path>`: a file under the local source root. The path is taken literally (the route already
 * decoded it). Only one spelling per file is accepted (no `.`, `..` or empty segments), which also
 * keeps the path inside the root before the fetcher's own realpath check runs.
 */
function parseLocal(relativePath: string): SourceLocation {
  if (relativePath === "") throw invalid("empty local path", relativePath);
  if (relativePath.includes("\0")) throw invalid("NUL in local path", relativePath);
  if (relativePath.includes("\\")) throw invalid("backslash in local path", relativePath);
  if (relativePath.startsWith("/")) throw invalid("absolute local path", relativePath);
  const badSegment = relativePath.split("/").find((s) => s === "" || s === "." || s === "..");
  if (badSegment !== undefined) throw invalid(`"${badSegment}" segment in local path`, relativePath);
  return { kind: "local", relativePath };
}

/**
 * `s3/{alias}/{key}`: an object in one of the project's private buckets. The key is checked like a
 * local path (one spelling per object); the bucket reader checks it again against S3's own rules.
 */
function parseBucket(rest: string): SourceLocation {
  const slash = rest.indexOf("/");
  const alias = slash === -1 ? rest : rest.slice(0, slash);
  if (!BUCKET_ALIAS.test(alias)) throw invalid("bucket alias must be lower-case letters, digits and dashes", rest);
  const key = slash === -1 ? "" : rest.slice(slash + 1);
  if (key === "") throw invalid("empty object key", rest);
  if (/\p{Cc}/u.test(key)) throw invalid("control character in object key", rest);
  const badSegment = key.split("/").find((s) => s === "" || s === "." || s === "..");
  if (badSegment !== undefined) throw invalid(`"${badSegment}" segment in object key`, rest);
  return { kind: "bucket", alias, key };
}

function invalid(reason: string, raw: string): AppError {
  return new AppError("INVALID_SOURCE", { detail: `${reason}: ${raw.slice(0, 200)}` });
}
