import type http from "node:http";
import { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { createPeerAddressServer, PEER_ADDRESS_HEADER as SCRIPT_HEADER } from "../../../scripts/peer-address.mjs";

/**
 * The server `npm start` runs (scripts/server.mjs) in front of Next's request handler: here in front of
 * a handler that echoes what the app would see, over a real socket.
 */
let server: http.Server;
let port: number;
beforeAll(async () => {
  server = createPeerAddressServer(async (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({ peer: req.headers[PEER_ADDRESS_HEADER], forwarded: req.headers["x-forwarded-for"] ?? null }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the app server's peer address", () => {
  it("is named as the app reads it", () => {
    expect(SCRIPT_HEADER).toBe(PEER_ADDRESS_HEADER);
  });

  it("stamps the socket's address and overwrites every copy a client sends", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      headers: { [PEER_ADDRESS_HEADER]: "198.51.100.1", "x-forwarded-for": "198.51.100.2" },
    });
    expect(await response.json()).toEqual({ peer: "127.0.0.1", forwarded: "198.51.100.2" });
  });

  it("answers 500 instead of hanging when the handler fails", async () => {
    const failing = createPeerAddressServer(async () => {
      throw new Error("boom");
    });
    await new Promise<void>((resolve) => failing.listen(0, "127.0.0.1", resolve));
    // The failure is said on stderr, as `next start` says it: asserted here, not printed.
    const said = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const response = await fetch(`http://127.0.0.1:${(failing.address() as AddressInfo).port}/`);
      expect(response.status).toBe(500);
      expect(said).toHaveBeenCalledWith("Failed to handle request for /", expect.objectContaining({ message: "boom" }));
    } finally {
      said.mockRestore();
      await new Promise<void>((resolve) => failing.close(() => resolve()));
    }
  });
});
