import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { isAppError } from "@/server/errors";
import { defaultNet } from "@/server/source/default-net";
import { startBudget } from "@/server/source/fetch-budget";
import { bareHostname, effectivePort, secureIfNeeded } from "@/server/source/http-exchange";
import { openCheckedSocket } from "@/server/source/open-checked-socket";
import { assertFetchableUrl } from "@/server/source/redirect-policy";
import type { NetDeps } from "@/server/source/types";

export interface PostDeps {
  net?: NetDeps;
  /** The sources' policy (OPTSTUFF_ALLOW_LOOPBACK_SOURCES): loopback receivers in development and tests. */
  allowLoopback: boolean;
  timeoutMs: number;
}

/** What the receiver answered (any status), or why nothing was answered. */
export type PostOutcome = { status: number } | { error: string };

/** The ports a receiver may listen on (any, where loopback is allowed: development and tests). */
export const WEBHOOK_PORTS = new Set([80, 443, 8080, 8443]);

/**
 * POSTs a webhook through the sources' address policy: one DNS lookup whose every answer must be
 * public (loopback only when the instance allows it), a connection to that exact address, TLS checked
 * against the host name, no redirect followed (a 3xx is an answer, not a way elsewhere), the web's
 * ports only, one deadline for all of it. Never throws: a refused address, a timeout or a reset is said in words.
 */
export async function postWebhook(
  url: URL,
  headers: Record<string, string>,
  body: string,
  deps: PostDeps,
): Promise<PostOutcome> {
  const budget = startBudget(deps.timeoutMs);
  const sockets = new Set<Socket>();
  const destroyAll = () => sockets.forEach((socket) => socket.destroy());
  budget.signal.addEventListener("abort", destroyAll, { once: true });
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined); // surfaced by the request; this keeps a hand-off's error from crashing
  };
  try {
    assertFetchableUrl(url, "SOURCE_NOT_ALLOWED");
    if (!deps.allowLoopback && !WEBHOOK_PORTS.has(effectivePort(url)))
      return { error: `port ${effectivePort(url)} is not allowed: receivers listen on 80, 443, 8080 or 8443` };
    const raw = await openCheckedSocket(bareHostname(url), effectivePort(url), {
      net: deps.net ?? defaultNet,
      allowLoopback: deps.allowLoopback,
      blockedCode: "SOURCE_NOT_ALLOWED",
      budget,
      track,
    });
    const socket = secureIfNeeded(url, raw);
    track(socket);
    return { status: await budget.race(send(url, socket, headers, body)) };
  } catch (error) {
    const reason = budget.signal.aborted ? budget.signal.reason : error;
    return { error: describe(reason, deps.timeoutMs) };
  } finally {
    destroyAll();
    budget.dispose();
  }
}

function send(url: URL, socket: Socket, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === "https:" ? https : http).request({
      method: "POST",
      host: bareHostname(url),
      port: effectivePort(url),
      path: `${url.pathname}${url.search}`,
      setHost: false,
      headers: {
        Host: url.host,
        "Content-Type": "application/json",
        "Content-Length": String(Buffer.byteLength(body)),
        "User-Agent": "OptStuff-Webhooks",
        ...headers,
      },
      createConnection: () => socket,
    });
    // The status is the answer; the body is not read (a receiver that trickles it changes nothing).
    request.once("response", (response) => {
      resolve(response.statusCode ?? 0);
      response.destroy();
    });
    request.on("error", reject);
    request.end(body);
  });
}

function describe(error: unknown, timeoutMs: number): string {
  if (isAppError(error)) {
    if (error.code === "SOURCE_TIMEOUT") return `no answer within ${timeoutMs / 1000} s`;
    // Which address a name resolved to stays here: a team must not map the server's network with it.
    if (error.code === "SOURCE_NOT_ALLOWED")
      return "address not allowed: a private, loopback or reserved address, a forbidden name, or credentials in the URL";
    return error.detail ?? error.publicMessage;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return `connection failed${typeof code === "string" ? ` (${code})` : ""}`;
}
