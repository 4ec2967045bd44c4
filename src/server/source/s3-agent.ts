import http from "node:http";
import https from "node:https";
import { isIP, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import { AppError } from "@/server/errors";
import { startBudget } from "./fetch-budget";
import { classifyAddress, isForbiddenHostname } from "./ip-policy";
import { openCheckedSocket } from "./open-checked-socket";
import type { NetDeps } from "./types";

export interface GuardedAgentOptions {
  net: NetDeps;
  allowLoopback: boolean;
  /** Budget of one connection (lookup, connect); a read's own budget still bounds the whole request. */
  connectTimeoutMs: number;
}

export interface GuardedAgents {
  httpAgent: http.Agent;
  httpsAgent: https.Agent;
}

/**
 * HTTP(S) agents for the AWS SDK whose every connection goes through the source fetcher's checked
 * dial (one lookup, every answer classified, connect to that exact address, peer re-checked). The
 * check sits here rather than on the endpoint alone because the SDK derives the host it dials
 * (`<bucket>.<endpoint host>` in virtual-hosted style), and a tenant types both parts.
 */
export function createGuardedAgents(options: GuardedAgentOptions): GuardedAgents {
  // Shared by every client of a reader: connections are per host and carry no credentials, so
  // tenants on the same provider reuse them. Idle sockets close after 15 s.
  const agentOptions = { keepAlive: true, maxSockets: 32, maxFreeSockets: 8, timeout: 15_000 };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  // Node's agent accepts a socket handed to the callback later: that is what lets the dial be async.
  httpAgent.createConnection = (request, callback) => deliver(openGuarded(request, false, options), callback);
  httpsAgent.createConnection = (request, callback) => deliver(openGuarded(request, true, options), callback);
  return { httpAgent, httpsAgent };
}

/**
 * Refuses, before any client is built, an endpoint that is not a plain http(s) base URL or that names
 * a host the policy forbids outright. Userinfo is refused so no credential can ride in a URL that
 * ends up in logs; query and fragment have no meaning for an S3 endpoint.
 */
export function assertBucketEndpoint(endpoint: string, allowLoopback: boolean): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch (cause) {
    throw new AppError("SOURCE_NOT_ALLOWED", { detail: "bucket endpoint is not a URL", cause });
  }
  const refuse = (why: string) => new AppError("SOURCE_NOT_ALLOWED", { detail: `bucket endpoint ${why}` });
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refuse(`scheme ${url.protocol} is not http(s)`);
  if (url.username !== "" || url.password !== "") throw refuse("carries credentials");
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(endpoint)) throw refuse("carries a query or fragment");
  const host = bareHost(url.hostname);
  if (isForbiddenHostname(host)) throw refuse(`host ${host} is forbidden`);
  if (isIP(host) !== 0) {
    const verdict = classifyAddress(host, allowLoopback);
    if (!verdict.allowed) throw refuse(`address ${host} is in ${verdict.range}`);
  }
  return url;
}

type Callback = (error: Error | null, stream: Duplex) => void;

function deliver(socket: Promise<Duplex>, callback: Callback | undefined): undefined {
  socket.then(
    (ready) => callback?.(null, ready),
    (error: Error) => callback?.(error, undefined as unknown as Duplex),
  );
  return undefined;
}

async function openGuarded(
  request: http.ClientRequestArgs,
  secure: boolean,
  options: GuardedAgentOptions,
): Promise<Socket> {
  const host = bareHost(request.host ?? request.hostname ?? "");
  const port = Number(request.port) || (secure ? 443 : 80);
  if (isForbiddenHostname(host))
    throw new AppError("SOURCE_NOT_ALLOWED", { detail: `bucket host ${host} is forbidden` });
  const budget = startBudget(options.connectTimeoutMs);
  const opened: Socket[] = [];
  try {
    const raw = await openCheckedSocket(host, port, {
      net: options.net,
      allowLoopback: options.allowLoopback,
      blockedCode: "SOURCE_NOT_ALLOWED",
      budget,
      track(socket) {
        opened.push(socket);
        // Errors reach the request through http's own listener; this one only keeps an error between
        // the dial and the hand-off from crashing the process.
        socket.on("error", () => undefined);
      },
    });
    if (!secure) return raw;
    // Certificate and SNI are checked against the host name, never the resolved address.
    const name = host.replace(/\.$/, "");
    return tls.connect({
      socket: raw,
      host: name,
      servername: isIP(name) === 0 ? name : undefined,
      ALPNProtocols: ["http/1.1"],
    });
  } catch (error) {
    for (const socket of opened) socket.destroy();
    throw error;
  } finally {
    budget.dispose();
  }
}

function bareHost(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
