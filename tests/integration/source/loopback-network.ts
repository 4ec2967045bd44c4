/**
 * Test network for the source fetcher. Workplace rule: tests send traffic to loopback only. The
 * fake `NetDeps` below records every lookup and every dial, really connects only to 127.0.0.1 and ::1,
 * maps a few fake public addresses (e.g. 93.184.216.34) to loopback servers without ever dialling
 * them, and throws for any other address, so a policy bug can never produce outside traffic.
 */
import http from "node:http";
import net, { type Socket } from "node:net";
import { expect } from "vitest";
import type { AppError, ErrorCode } from "@/server/errors";
import type { NetDeps, ResolvedAddress } from "@/server/source/types";

export interface Origin {
  port: number;
  /** `http://127.0.0.1:<port>` (or `http://[::1]:<port>`). */
  base: string;
  /** Every TCP connection the origin accepted, ever. */
  connections: number;
  /** Connections still open right now. */
  open: Set<Socket>;
  /** Request headers as the origin received them, in order. */
  requests: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** A real HTTP server on a loopback address that counts connections. */
export async function startOrigin(handler: http.RequestListener, host = "127.0.0.1"): Promise<Origin> {
  const server = http.createServer();
  const open = new Set<Socket>();
  const origin: Origin = {
    port: 0,
    base: "",
    connections: 0,
    open,
    requests: [],
    close: () => closeServer(server, open),
  };
  server.on("connection", (socket: Socket) => {
    origin.connections += 1;
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    origin.requests.push(req.headers);
    handler(req, res);
  });
  await listen(server, host);
  origin.port = (server.address() as net.AddressInfo).port;
  origin.base = host.includes(":") ? `http://[${host}]:${origin.port}` : `http://${host}:${origin.port}`;
  return origin;
}

export async function listen(server: net.Server, host = "127.0.0.1"): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
}

async function closeServer(server: net.Server, open: Set<Socket>): Promise<void> {
  for (const socket of open) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export interface TestNetwork {
  net: NetDeps;
  lookups: string[];
  dials: Array<{ address: string; port: number }>;
  /** Dials to anything but the fake public routes: must stay empty in every refusal test. */
  forbiddenDials(): Array<{ address: string; port: number }>;
}

export interface TestNetworkOptions {
  /** Name → answers; a function gets the 1-based call number (for rebinding answers). */
  dns?: Record<string, string[] | ((call: number) => string[])>;
  /** Fake public address → loopback port it is routed to; the socket reports the fake address as its peer. */
  publicRoutes?: Record<string, number>;
}

export function createTestNetwork(options: TestNetworkOptions = {}): TestNetwork {
  const lookups: string[] = [];
  const dials: Array<{ address: string; port: number }> = [];
  const routes = options.publicRoutes ?? {};
  const calls = new Map<string, number>();
  const testNet: NetDeps = {
    async lookup(hostname) {
      lookups.push(hostname);
      const answer = options.dns?.[hostname];
      if (answer === undefined)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
      const call = (calls.get(hostname) ?? 0) + 1;
      calls.set(hostname, call);
      const addresses = typeof answer === "function" ? answer(call) : answer;
      return addresses.map((address): ResolvedAddress => ({ address, family: net.isIP(address) === 6 ? 6 : 4 }));
    },
    connect({ address, port }) {
      dials.push({ address, port });
      const routed = routes[address];
      if (routed !== undefined) return fakePeer(net.connect({ host: "127.0.0.1", port: routed }), address);
      if (address === "127.0.0.1" || address === "::1") return net.connect({ host: address, port });
      throw new Error(`test network: refusing to dial non-loopback ${address}:${port}`);
    },
  };
  return {
    net: testNet,
    lookups,
    dials,
    forbiddenDials: () => dials.filter((d) => routes[d.address] === undefined),
  };
}

// The simulated network says the socket reached the fake public address, as a real one would.
function fakePeer(socket: Socket, address: string): Socket {
  Object.defineProperty(socket, "remoteAddress", { get: () => address, configurable: true });
  return socket;
}

/** Runs `work`, expecting an AppError with `code`; returns it for further assertions. */
export async function expectAppError(work: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  const error = await work.then(
    () => new Error("expected a rejection"),
    (thrown: unknown) => thrown,
  );
  expect((error as { code?: unknown }).code, String((error as Error).message)).toBe(code);
  return error as AppError;
}

export async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("waitFor: condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
