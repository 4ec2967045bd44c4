// The built app as `npm start` serves it: Next's own request handler (the one `next start` uses, through
// Next's documented custom-server API) behind scripts/peer-address.mjs, which hands every request the
// socket's address. `next start` cannot: its route handlers see only headers, and a client writes
// X-Forwarded-For itself when nothing is in front (docs/self-hosting.md).
// Usage: node scripts/server.mjs [--hostname 127.0.0.1] [--port 3000], from the app's directory.
import { parseArgs } from "node:util";
import { createPeerAddressServer } from "./peer-address.mjs";
import { createRequestRouter } from "./request-routes.mjs";

const { values } = parseArgs({
  options: { hostname: { type: "string", short: "H" }, port: { type: "string", short: "p" } },
});
const hostname = values.hostname ?? process.env.HOST ?? "127.0.0.1";
const port = Number(values.port ?? process.env.PORT ?? 3000);

// As `next start` does; before Next (and React) load, which read it once.
process.env.NODE_ENV ||= "production";
// The app reads PORT and HOST for its default public URL (as under `next start`, which sets PORT too),
// and writes that URL down for the command line (src/server/config/server-address.ts).
process.env.PORT = String(port);
process.env.HOST = hostname;
const { default: next } = await import("next");

const app = next({ dev: false, dir: process.cwd(), hostname, port });
await app.prepare();
const server = createPeerAddressServer(createRequestRouter(app.getRequestHandler()));
server.on("error", (error) => {
  console.error("Failed to start server", error);
  process.exit(1);
});
// Signals are the app's (src/server/services.ts closes the services, then exits), as under `next start`
// with NEXT_MANUAL_SIG_HANDLE; Next registers none for a custom server.
server.listen(port, hostname, () => console.log(`Ready on http://${hostname}:${port}`));
