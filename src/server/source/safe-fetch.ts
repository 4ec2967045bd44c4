import { lazyOnce } from "@/server/lazy-once";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { AppError, isAppError } from "@/server/errors";
import { defaultNet } from "./default-net";
import { startBudget, type FetchBudget } from "./fetch-budget";
import { bareHostname, effectivePort, secureIfNeeded, sendGet } from "./http-exchange";
import { openCheckedSocket, type BlockedCode } from "./open-checked-socket";
import { readLocalSource } from "./read-local-source";
import { readResponse } from "./read-response";
import type { BucketReader } from "./s3-source";
import { assertFetchableUrl, redirectLocation, resolveRedirect } from "./redirect-policy";
import type { FetchLimits, FetchOptions, FetchedSource, NetDeps, SourceFetcher } from "./types";

export interface SourceFetcherOptions {
  limits: FetchLimits;
  /** Directory served as `local/<path>`. Default null: local sources are refused. */
  localRoot: string | null;
  /** Network seams (tests inject recorders). Default: real DNS lookup and TCP connect. */
  net?: Partial<NetDeps>;
}

interface RemoteDeps {
  limits: FetchLimits;
  net: NetDeps;
}

/**
 * Builds the one fetcher of source images (contract §5). Remote fetches resolve each host once,
 * check every address, connect to that exact address and speak HTTP over that socket; redirects are
 * re-checked hop by hop; one budget covers the whole fetch; every socket is destroyed at the end.
 */
export function createSourceFetcher(options: SourceFetcherOptions): SourceFetcher {
  const custom = options.net ?? {};
  const net: NetDeps = {
    lookup: (hostname) => (custom.lookup ? custom.lookup(hostname) : defaultNet.lookup(hostname)),
    connect: (target) => (custom.connect ? custom.connect(target) : defaultNet.connect(target)),
  };
  // The S3 SDK is loaded by the first bucket source, not by every cold start of the image route.
  const bucketReader = lazyOnce(async (): Promise<BucketReader> => {
    const { createBucketReader } = await import("./s3-source");
    return createBucketReader({ limits: options.limits, net });
  });
  return {
    fetch(location, fetchOptions = {}) {
      if (location.kind === "local") {
        return readLocalSource(options.localRoot, location.relativePath, options.limits.maxBytes);
      }
      if (location.kind === "bucket") {
        if (!fetchOptions.bucket)
          throw new AppError("INTERNAL", { detail: `bucket ${location.alias} fetched without its settings` });
        const settings = { ...fetchOptions.bucket, alias: location.alias };
        return bucketReader().then((reader) => reader.read(settings, location.key, fetchOptions));
      }
      return fetchRemote(location.url, { limits: options.limits, net }, fetchOptions);
    },
  };
}

/** A remote source on the real network, without the fetcher's bucket client and local root (the download thread). */
export function fetchRemoteSource(url: URL, limits: FetchLimits, options: FetchOptions): Promise<FetchedSource> {
  return fetchRemote(url, { limits, net: defaultNet }, options);
}

async function fetchRemote(
  initial: URL,
  deps: RemoteDeps,
  { signal, mayFollow, conditional }: FetchOptions,
): Promise<FetchedSource> {
  const budget = startBudget(deps.limits.timeoutMs, signal);
  const sockets = createSocketSet();
  // On timeout or caller abort, tear the connection down at once: that is what unblocks a read of
  // a body that trickles or never ends, and it frees the origin's connection.
  budget.signal.addEventListener("abort", sockets.destroyAll, { once: true });
  try {
    let url = initial;
    let blockedCode: BlockedCode = "SOURCE_NOT_ALLOWED";
    assertFetchableUrl(url, blockedCode);
    for (let redirects = 0; ; redirects += 1) {
      const response = await requestHop(url, blockedCode, deps, budget, sockets, conditionalHeaders(conditional));
      const location = redirectLocation(response);
      if (location === null)
        return await budget.race(readResponse(response, url, deps.limits.maxBytes, conditional !== undefined));
      sockets.destroyAll();
      if (redirects >= deps.limits.maxRedirects) {
        throw new AppError("SOURCE_REDIRECT_FORBIDDEN", { detail: `more than ${deps.limits.maxRedirects} redirects` });
      }
      url = resolveRedirect(url, location);
      if (mayFollow && !mayFollow(url)) {
        throw new AppError("SOURCE_REDIRECT_FORBIDDEN", {
          detail: `redirect to ${url.host}, which is not in the project's allowed sources`,
        });
      }
      blockedCode = "SOURCE_REDIRECT_FORBIDDEN";
    }
  } catch (error) {
    // Once the budget ran out, whatever broke (a reset socket, a half-read body) broke because of it.
    throw budget.signal.aborted ? (budget.signal.reason as AppError) : asSourceError(error);
  } finally {
    sockets.destroyAll();
    budget.dispose();
  }
}

async function requestHop(
  url: URL,
  blockedCode: BlockedCode,
  deps: RemoteDeps,
  budget: FetchBudget,
  sockets: SocketSet,
  extraHeaders: Record<string, string>,
): Promise<IncomingMessage> {
  const raw = await openCheckedSocket(bareHostname(url), effectivePort(url), {
    net: deps.net,
    allowLoopback: deps.limits.allowLoopback,
    blockedCode,
    budget,
    track: sockets.add,
  });
  const transport = secureIfNeeded(url, raw);
  sockets.add(transport);
  return budget.race(sendGet(url, transport, extraHeaders));
}

function conditionalHeaders(conditional: FetchOptions["conditional"]): Record<string, string> {
  const headers: Record<string, string> = {};
  if (conditional?.ifNoneMatch) headers["If-None-Match"] = conditional.ifNoneMatch;
  if (conditional?.ifModifiedSince) headers["If-Modified-Since"] = conditional.ifModifiedSince;
  return headers;
}

function asSourceError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  return new AppError("SOURCE_FAILED", {
    detail: `source connection failed${typeof code === "string" ? ` (${code})` : ""}`,
    cause: error,
  });
}

interface SocketSet {
  add(socket: Socket): void;
  destroyAll(): void;
}

// A fetch owns every socket it opens (TCP and TLS): destroying them all in `finally` is what makes
// "no leaked socket on any failure path" hold without reasoning about each path separately.
function createSocketSet(): SocketSet {
  const sockets = new Set<Socket>();
  return {
    add(socket) {
      sockets.add(socket);
      // Errors reach the fetch through the awaited event or the HTTP request; this listener only keeps
      // an error emitted between hand-offs (connect → TLS → request) from crashing the process.
      socket.on("error", () => undefined);
    },
    destroyAll() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
  };
}
