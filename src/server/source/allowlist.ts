import { AppError } from "@/server/errors";
import type { SourceLocation } from "./types";

/** A project's allowed-source entry after normalisation. */
export type HostEntry =
  /** `*`: any remote host (the address policy still applies at connect time); not local sources. */
  | { kind: "any-remote" }
  /** `local`: files under the configured local source root. */
  | { kind: "local" }
  | {
      kind: "host";
      /** Lower-case, punycode, no trailing dot; IPv6 in brackets as WHATWG writes it. */
      host: string;
      /** `*.example.com`: subdomains only. A plain entry allows the host and its subdomains. */
      subdomainsOnly: boolean;
      /** Null: http and https. */
      scheme: "http:" | "https:" | null;
      /** Null: only the scheme's default port (80/443); an entry names any other port explicitly. */
      port: string | null;
    };

const SCHEME_PREFIX = /^(https?):\/\//i;

/**
 * Normalises one allowed-source entry (contract §5): `example.com`, `*.example.com`,
 * `https://cdn.example.com`, `cdn.example.com:8443`, `*`, `local`. Case, a trailing dot and IDN
 * spelling do not matter. Returns null for an entry that cannot be understood (a path, another
 * scheme, credentials, a stray `*`), which then allows nothing: a typo must never widen the list.
 */
export function normaliseHostEntry(entry: string): HostEntry | null {
  const trimmed = entry.trim();
  if (trimmed === "*") return { kind: "any-remote" };
  if (trimmed.toLowerCase() === "local") return { kind: "local" };

  const schemeMatch = SCHEME_PREFIX.exec(trimmed);
  if (!schemeMatch && trimmed.includes("://")) return null;
  const scheme = schemeMatch ? (`${schemeMatch[1]?.toLowerCase()}:` as "http:" | "https:") : null;
  let rest = schemeMatch ? trimmed.slice(schemeMatch[0].length) : trimmed;
  const subdomainsOnly = rest.startsWith("*.");
  if (subdomainsOnly) rest = rest.slice(2);
  if (rest === "" || rest.includes("*") || rest.includes("@")) return null;

  const url = tryParse(`${scheme ?? "https:"}//${rest}`);
  if (!url || url.pathname !== "/" || url.search !== "" || url.hash !== "") return null;
  // With a scheme, WHATWG drops an explicit default port ("https://x:443" is "https://x"), which is the
  // same rule as "no port". Without one, the written port is the only source of truth.
  const port = scheme ? url.port || null : portWritten(rest);
  return { kind: "host", host: bareHost(url.hostname), subdomainsOnly, scheme, port };
}

/** The fetcher's redirect check for a project's list (contract §5); undefined asks nothing at redirects. */
export function redirectsWithin(allowedHosts: readonly string[] | undefined): ((url: URL) => boolean) | undefined {
  return allowedHosts ? (url) => isSourceAllowed({ kind: "remote", url }, allowedHosts) : undefined;
}

/** Whether a project's allowed-source list admits this location. An empty list refuses everything. */
export function isSourceAllowed(location: SourceLocation, allowedHosts: readonly string[]): boolean {
  const entries = normalisedEntries(allowedHosts);
  if (location.kind === "local") return entries.some((e) => e?.kind === "local");
  // A bucket is allowed by being configured (delivery checks the alias), never by a host list.
  if (location.kind === "bucket") return false;
  return entries.some((e) => e !== null && remoteMatches(location.url, e));
}

// Config objects come from the config cache and are reused across requests: parse each list once
// instead of running the URL parser over every entry on every image request.
const parsedLists = new WeakMap<readonly string[], readonly (HostEntry | null)[]>();

function normalisedEntries(allowedHosts: readonly string[]): readonly (HostEntry | null)[] {
  let entries = parsedLists.get(allowedHosts);
  if (!entries) {
    entries = allowedHosts.map(normaliseHostEntry);
    parsedLists.set(allowedHosts, entries);
  }
  return entries;
}

export function assertSourceAllowed(location: SourceLocation, allowedHosts: readonly string[]): void {
  if (isSourceAllowed(location, allowedHosts)) return;
  const where =
    location.kind === "local"
      ? `local/${location.relativePath}`
      : location.kind === "bucket"
        ? `s3/${location.alias}`
        : location.url.host;
  throw new AppError("SOURCE_NOT_ALLOWED", { detail: `source ${where} is not in the project's allowed sources` });
}

/**
 * Referer allowlist (contract §5). An empty list allows every request, with or without a Referer.
 * Otherwise the Referer must be present and parseable, and its host must match an entry:
 * - `example.com` matches exactly that host. Subdomains are NOT implied here (unlike source hosts):
 *   a referer list states who may embed the images, and `*.` makes widening an explicit choice.
 * - `*.example.com` matches any subdomain but not the apex (list both to allow both).
 * - `*` matches any present Referer (it still refuses a missing one).
 * Entries may carry a scheme or port (`https://example.com:8443`); only the host is compared.
 */
export function isRefererAllowed(referer: string | null, allowedReferers: readonly string[]): boolean {
  if (allowedReferers.length === 0) return true;
  const refererUrl = referer === null ? null : tryParse(referer);
  if (!refererUrl || (refererUrl.protocol !== "http:" && refererUrl.protocol !== "https:")) return false;
  const host = bareHost(refererUrl.hostname);
  return allowedReferers.some((entry) => refererEntryMatches(host, entry.trim()));
}

function remoteMatches(url: URL, entry: HostEntry): boolean {
  if (entry.kind === "any-remote") return true;
  if (entry.kind === "local") return false;
  if (entry.scheme !== null && url.protocol !== entry.scheme) return false;
  if (entry.port === null ? url.port !== "" : effectivePort(url) !== entry.port) return false;
  return hostMatches(bareHost(url.hostname), entry.host, entry.subdomainsOnly ? "subdomains" : "host-and-subdomains");
}

function refererEntryMatches(host: string, entry: string): boolean {
  if (entry === "*") return true;
  const wildcard = entry.startsWith("*.");
  const rest = wildcard ? entry.slice(2) : entry;
  if (rest === "" || rest.includes("*")) return false;
  const url = tryParse(SCHEME_PREFIX.test(rest) ? rest : `https://${rest}`);
  if (!url) return false;
  return hostMatches(host, bareHost(url.hostname), wildcard ? "subdomains" : "exact");
}

function hostMatches(host: string, entryHost: string, mode: "exact" | "subdomains" | "host-and-subdomains"): boolean {
  const isSubdomain = host.endsWith(`.${entryHost}`);
  if (mode === "subdomains") return isSubdomain;
  return host === entryHost || (mode === "host-and-subdomains" && isSubdomain);
}

function effectivePort(url: URL): string {
  return url.port !== "" ? url.port : url.protocol === "http:" ? "80" : "443";
}

function portWritten(rest: string): string | null {
  const match = /:(\d+)\/?$/.exec(rest);
  return match ? String(Number(match[1])) : null;
}

function bareHost(hostname: string): string {
  return hostname.toLowerCase().replace(/\.+$/, "");
}

function tryParse(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
