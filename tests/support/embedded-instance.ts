/**
 * The embedded default in a process of its own, built the way production builds it: the environment
 * read by src/env.ts, startServer() (migrations, scheduler, signal handlers), the image route's Node
 * handler (src/pages/api/image-delivery.ts) and the flush cron route. Crash tests SIGKILL it and start
 * another on the same data directory. Usage: OPTSTUFF_DATA_DIR=… node --import tsx tests/support/embedded-instance.ts;
 * prints "READY <port>", then "RECORDED" once each image request's recording is done.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCronRouteHandler } from "@/server/http/cron-route";
import { createImageRouteHandler } from "@/server/http/image-route";
import { getServices } from "@/server/services";
import { startServer } from "@/server/startup";

await startServer();
const image = createImageRouteHandler(getServices);
const flush = createCronRouteHandler(getServices, "flush-usage-buffer");

async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://embedded.test");
  if (url.pathname === "/api/cron/flush-usage-buffer") {
    const response = await flush(new Request(url, { headers: { authorization: req.headers.authorization ?? "" } }));
    res.writeHead(response.status, { "content-type": "application/json" }).end(await response.text());
    return;
  }
  await image.node(req, res);
  // The handler returns once the request's log row and metering are written (or given up): crash tests
  // wait for this line, not for a time, before they kill the process.
  console.log("RECORDED");
}

const server = http.createServer((req, res) => void serve(req, res));
server.listen(0, "127.0.0.1", () => console.log(`READY ${(server.address() as AddressInfo).port}`));
