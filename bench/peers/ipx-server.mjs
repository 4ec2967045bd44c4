// ipx as users run it (its own Node server, its defaults), for bench:image. Plain Node (no tsx) so the
// process tree measured is ipx alone. Usage: node bench/peers/ipx-server.mjs PORT ALLOWED_HOST
// Requests: /w_800,q_80,f_webp/http://ALLOWED_HOST/path (add ",animated" to keep frames).
import http from "node:http";
import { createIPX, createIPXNodeServer, ipxHttpStorage } from "ipx";

const [port, host] = process.argv.slice(2);
const ipx = createIPX({ storage: ipxHttpStorage({ domains: [host] }) });
const server = http.createServer(createIPXNodeServer(ipx));
server.listen(Number(port), "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
