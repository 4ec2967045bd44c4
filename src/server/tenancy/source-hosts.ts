import { isIP } from "node:net";
import { AppError } from "@/server/errors";
import { classifyAddress, isForbiddenHostname, normaliseHostEntry, type HostEntry } from "@/server/source";

/**
 * Validates and canonicalises a project's allowed source hosts for storage. Entries that could only
 * ever point inside the network (private addresses, localhost, metadata names) are refused here with
 * a message, even though the fetcher would refuse them anyway at connect time: the list should say
 * what can work. Duplicates are dropped; order is kept.
 */
export function normaliseSourceHosts(entries: readonly string[], policy: SourceHostPolicy = {}): string[] {
  const canonical = entries.filter((e) => e.trim() !== "").map((e) => canonicalEntry(e, policy));
  return [...new Set(canonical)];
}

/**
 * Same for referer entries: `*`, `example.com` or `*.example.com` (a scheme or port may be written but
 * only the host is compared, so only the host is kept). `local` means nothing for a referer.
 */
export function normaliseRefererHosts(entries: readonly string[], policy: SourceHostPolicy = {}): string[] {
  const canonical = entries
    .filter((e) => e.trim() !== "")
    .map((raw) => {
      const entry = normaliseHostEntry(raw);
      if (entry?.kind === "any-remote") return "*";
      if (!entry || entry.kind !== "host")
        throw invalid(raw, "use a host such as example.com, *.example.com or *", "allowedRefererHosts");
      assertPublicHost(raw, entry, policy.allowLoopback ?? false, "allowedRefererHosts");
      return `${entry.subdomainsOnly ? "*." : ""}${entry.host}`;
    });
  return [...new Set(canonical)];
}

export interface SourceHostPolicy {
  /** Loopback hosts accepted too (development and tests, with OPTSTUFF_ALLOW_LOOPBACK_SOURCES). */
  allowLoopback?: boolean;
}

function canonicalEntry(raw: string, policy: SourceHostPolicy): string {
  const entry = normaliseHostEntry(raw);
  if (!entry)
    throw invalid(raw, "use a host such as cdn.example.com, *.example.com, https://cdn.example.com:8443, * or local");
  if (entry.kind === "any-remote") return "*";
  if (entry.kind === "local") return "local";
  assertPublicHost(raw, entry, policy.allowLoopback ?? false);
  const scheme = entry.scheme ? `${entry.scheme}//` : "";
  return `${scheme}${entry.subdomainsOnly ? "*." : ""}${entry.host}${entry.port ? `:${entry.port}` : ""}`;
}

type ListName = "allowedSourceHosts" | "allowedRefererHosts";

function assertPublicHost(
  raw: string,
  entry: Extract<HostEntry, { kind: "host" }>,
  allowLoopback: boolean,
  list: ListName = "allowedSourceHosts",
): void {
  const bare = entry.host.replace(/^\[|\]$/g, "");
  if (allowLoopback && bare === "localhost") return;
  if (isIP(bare) !== 0 && !classifyAddress(bare, allowLoopback).allowed)
    throw invalid(raw, "private, loopback and reserved addresses are not allowed", list);
  if (isIP(bare) === 0 && isForbiddenHostname(bare))
    throw invalid(raw, "local and internal host names are not allowed", list);
}

function invalid(raw: string, why: string, list: ListName = "allowedSourceHosts"): AppError {
  const what = list === "allowedSourceHosts" ? "source host" : "referer host";
  return new AppError("INVALID_INPUT", { message: `"${raw}" is not a valid ${what}: ${why}`, field: list });
}
