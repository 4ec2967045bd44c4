// The built app as `npm start` serves it: Next's own request handler (the one `next start` uses, through
// Next's documented custom-server API) behind scripts/peer-address.mjs, which hands every request the
// socket's address. `next start` cannot: its route handlers see only headers, and a client writes
// X-Forwarded-For itself when nothing is in front (docs/self-hosting.md).
// Usage: node scripts/server.mjs [--hostname 127.0.0.1] [--port 3000], from the app's directory.
import { parseArgs } from "node:util";
import compression from "compression";
import { createPeerAddressServer } from "./peer-address.mjs";

const { values } = parseArgs({
  options: { hostname: { type: "string", short: "H" }, port: { type: "string", short: "p" } },
});
const hostname = values.hostname ?? process.env.HOST ?? "127.0.0.1";
const port = Number(values.port ?? process.env.PORT ?? 3000);

// As `next start` does; before Next (and React) load, which read it once.
process.env.NODE_ENV ||= "production";
// The app reads PORT for its default public URL, as under `next start`, which sets it too.
process.env.PORT = String(port);
const { default: next } = await import("next");

const app = next({ dev: false, dir: process.cwd(), hostname, port });
await app.prepare();
const handle = app.getRequestHandler();
// What Next's own `compress` did (turned off in next.config.ts), for everything but the image API,
// whose answers are framed exactly as the contract says: fixed length, no Accept-Encoding variant.
// The image API skips the middleware altogether: wrapping a response costs it about 0.5 ms of CPU an
// image (--cpu-prof over bench:image) for nothing it would ever compress.
const compress = compression();
const imageApi = (req) => req.url?.startsWith("/api/v1/") === true;
const server = createPeerAddressServer((req, res) =>
  imageApi(req) ? handle(req, res) : compress(req, res, () => handle(req, res)),
);
server.on("error", (error) => {
  console.error("Failed to start server", error);
  process.exit(1);
});
// Signals are the app's (src/server/services.ts closes the services, then exits), as under `next start`
// with NEXT_MANUAL_SIG_HANDLE; Next registers none for a custom server.
server.listen(port, hostname, () => console.log(`Ready on http://${hostname}:${port}`));
