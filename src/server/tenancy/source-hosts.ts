import { isIP } from "node:net";
import { AppError } from "@/server/errors";
import { classifyAddress, isForbiddenHostname, normaliseHostEntry, type HostEntry } from "@/server/source";

/**
 * Validates and canonicalises a project's allowed source hosts for storage. Entries that could only
 * ever point inside the network (private addresses, localhost, metadata names) are refused here with
 * a message, even though the fetcher would refuse them anyway at connect time: the list should say
 * what can work. Duplicates are dropped; order is kept. A refusal names every bad entry, so a list
 * pasted with three mistakes is mended in one go.
 */
export function normaliseSourceHosts(entries: readonly string[], policy: SourceHostPolicy = {}): string[] {
  return normaliseList(entries, "allowedSourceHosts", (raw) => canonicalEntry(raw, policy));
}

/**
 * Same for referer entries: `*`, `example.com` or `*.example.com` (a scheme or port may be written but
 * only the host is compared, so only the host is kept). `local` means nothing for a referer.
 */
export function normaliseRefererHosts(entries: readonly string[], policy: SourceHostPolicy = {}): string[] {
  return normaliseList(entries, "allowedRefererHosts", (raw) => {
    const entry = normaliseHostEntry(raw);
    if (entry?.kind === "any-remote") return "*";
    if (!entry || entry.kind !== "host") return refused("use a host such as example.com, *.example.com or *");
    return publicHostProblem(entry, policy) ?? `${entry.subdomainsOnly ? "*." : ""}${entry.host}`;
  });
}

export interface SourceHostPolicy {
  /** Loopback hosts accepted too (development and tests, with OPTSTUFF_ALLOW_LOOPBACK_SOURCES). */
  allowLoopback?: boolean;
}

type ListName = "allowedSourceHosts" | "allowedRefererHosts";

/** Why an entry is refused, in words that follow its quoted text. */
interface Refused {
  why: string;
}

const refused = (why: string): Refused => ({ why });

function normaliseList(entries: readonly string[], list: ListName, canonical: (raw: string) => string | Refused) {
  const kept: string[] = [];
  const refusals = new Map<string, string>();
  for (const raw of entries) {
    if (raw.trim() === "") continue;
    const result = canonical(raw);
    if (typeof result === "string") kept.push(result);
    else refusals.set(raw, result.why);
  }
  if (refusals.size > 0) throw invalid(refusals, list);
  return [...new Set(kept)];
}

function canonicalEntry(raw: string, policy: SourceHostPolicy): string | Refused {
  const entry = normaliseHostEntry(raw);
  if (!entry)
    return refused("use a host such as cdn.example.com, *.example.com, https://cdn.example.com:8443, * or local");
  if (entry.kind === "any-remote") return "*";
  if (entry.kind === "local") return "local";
  const scheme = entry.scheme ? `${entry.scheme}//` : "";
  return (
    publicHostProblem(entry, policy) ??
    `${scheme}${entry.subdomainsOnly ? "*." : ""}${entry.host}${entry.port ? `:${entry.port}` : ""}`
  );
}

function publicHostProblem(entry: Extract<HostEntry, { kind: "host" }>, policy: SourceHostPolicy): Refused | null {
  const allowLoopback = policy.allowLoopback ?? false;
  const bare = entry.host.replace(/^\[|\]$/g, "");
  if (allowLoopback && bare === "localhost") return null;
  if (isIP(bare) !== 0 && !classifyAddress(bare, allowLoopback).allowed)
    return refused("private, loopback and reserved addresses are not allowed");
  if (isIP(bare) === 0 && isForbiddenHostname(bare)) return refused("local and internal host names are not allowed");
  return null;
}

/**
 * One refusal for the list, at its field (a form shows it there): one entry as before, several grouped
 * by reason, each reason after the entries it refuses.
 */
function invalid(refusals: ReadonlyMap<string, string>, list: ListName): AppError {
  const what = list === "allowedSourceHosts" ? "source host" : "referer host";
  const byReason = new Map<string, string[]>();
  for (const [raw, why] of refusals) byReason.set(why, [...(byReason.get(why) ?? []), `"${raw}"`]);
  const message =
    refusals.size === 1
      ? [...refusals].map(([raw, why]) => `"${raw}" is not a valid ${what}: ${why}`).join("")
      : `${refusals.size} ${what}s are not valid: ${[...byReason].map(([why, raws]) => `${inWords(raws)} (${why})`).join("; ")}`;
  return new AppError("INVALID_INPUT", { message, field: list });
}

/** "a", "a and b", "a, b and c". */
function inWords(items: readonly string[]): string {
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
