import { once } from "node:events";
import { isIP, type Socket } from "node:net";
import { AppError, isAppError } from "@/server/errors";
import type { FetchBudget } from "./fetch-budget";
import { classifyAddress } from "./ip-policy";
import type { NetDeps, ResolvedAddress } from "./types";

/** Refusal code: SOURCE_NOT_ALLOWED for the URL the client asked for, SOURCE_REDIRECT_FORBIDDEN after a redirect. */
export type BlockedCode = "SOURCE_NOT_ALLOWED" | "SOURCE_REDIRECT_FORBIDDEN";

export interface ConnectContext {
  net: NetDeps;
  allowLoopback: boolean;
  blockedCode: BlockedCode;
  budget: FetchBudget;
  /** Receives every socket as soon as it exists, so the fetch can destroy it on any failure path. */
  track(socket: Socket): void;
}

/**
 * Resolves `host` once, refuses it if ANY answer is in a forbidden range (a mixed public/private
 * answer is how rebinding and split-horizon tricks start), then connects to one of those exact
 * addresses and re-checks the peer address the kernel reports. The caller speaks HTTP over the
 * returned socket, so no other lookup ever happens.
 */
export async function openCheckedSocket(host: string, port: number, ctx: ConnectContext): Promise<Socket> {
  const addresses = await resolveOnce(host, ctx);
  for (const { address } of addresses) {
    const verdict = classifyAddress(address, ctx.allowLoopback);
    if (!verdict.allowed) throw blocked(ctx, `${host} resolves to ${address} in ${verdict.range}`);
  }
  let lastError: unknown;
  // Try the checked addresses in resolver order; a refused or unreachable one falls through to the next.
  for (const address of addresses) {
    try {
      return await connectTo(address, port, host, ctx);
    } catch (error) {
      if (ctx.budget.signal.aborted || (isAppError(error) && error.code === ctx.blockedCode)) throw error;
      lastError = error;
    }
  }
  throw new AppError("SOURCE_FAILED", { detail: `could not connect to ${host}:${port}`, cause: lastError });
}

async function resolveOnce(host: string, ctx: ConnectContext): Promise<ResolvedAddress[]> {
  const literal = isIP(host);
  if (literal !== 0) return [{ address: host, family: literal === 6 ? 6 : 4 }];
  let answers: ResolvedAddress[];
  try {
    answers = await ctx.budget.race(ctx.net.lookup(host));
  } catch (cause) {
    if (ctx.budget.signal.aborted) throw cause;
    throw new AppError("SOURCE_FAILED", { detail: `DNS lookup of ${host} failed`, cause });
  }
  if (answers.length === 0)
    throw new AppError("SOURCE_FAILED", { detail: `DNS lookup of ${host} returned no address` });
  return answers;
}

async function connectTo(target: ResolvedAddress, port: number, host: string, ctx: ConnectContext): Promise<Socket> {
  const socket = ctx.net.connect({ address: target.address, port, family: target.family });
  ctx.track(socket);
  if (socket.connecting) await ctx.budget.race(once(socket, "connect", { signal: ctx.budget.signal }));
  // The address the socket really reached is what matters (a custom connect, a proxy, a bug):
  // check it with the same policy before a single byte of the request is written.
  const peer = socket.remoteAddress;
  const verdict =
    peer === undefined ? { allowed: false, range: "no peer address" } : classifyAddress(peer, ctx.allowLoopback);
  if (!verdict.allowed) {
    socket.destroy();
    throw blocked(ctx, `${host} connected to ${peer ?? "nothing"} in ${verdict.range}`);
  }
  return socket;
}

function blocked(ctx: ConnectContext, detail: string): AppError {
  return new AppError(ctx.blockedCode, { detail });
}
