// The HTTP server in front of Next's request handler (scripts/server.mjs). Plain JavaScript: it runs
// before anything could compile TypeScript.
import http from "node:http";

/** Read by src/server/ratelimit/client-address.ts under the same name (a unit test checks both). */
export const PEER_ADDRESS_HEADER = "x-optstuff-peer-address";

/**
 * An HTTP server that hands each request to `handle` with the address of the socket it came in on,
 * in PEER_ADDRESS_HEADER. Route handlers only see headers, and under `next start` X-Forwarded-For is
 * whatever the client sent (Next fills it from the socket only when it is absent), so this stamp is
 * the only address a client cannot choose. Any copy the client sent is overwritten, every time.
 */
export function createPeerAddressServer(handle) {
  return http.createServer((req, res) => {
    // remoteAddress is undefined only once the socket is gone; nothing will be answered then anyway.
    req.headers[PEER_ADDRESS_HEADER] = req.socket.remoteAddress ?? "unknown";
    Promise.resolve()
      .then(() => handle(req, res))
      .catch((error) => {
        // What `next start` does too: a failure in the handler itself answers 500, never hangs.
        console.error(`Failed to handle request for ${req.url}`, error);
        if (!res.headersSent) res.statusCode = 500;
        res.end("Internal Server Error");
      });
  });
}
