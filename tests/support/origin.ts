import http from "node:http";
import type { AddressInfo } from "node:net";

export type OriginHandler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export interface Origin {
  /** `127.0.0.1:PORT`, ready to be a source host. */
  host: string;
  port: number;
  /** TCP connections accepted so far: proves whether anything reached this origin. */
  connections(): number;
  requests: http.IncomingMessage[];
  close(): Promise<void>;
}

/** A real HTTP origin on loopback, routing by path. */
export async function startOrigin(routes: Record<string, OriginHandler>): Promise<Origin> {
  let connections = 0;
  const requests: http.IncomingMessage[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request);
    const handler = routes[new URL(request.url ?? "/", "http://origin").pathname];
    if (handler) handler(request, response);
    else response.writeHead(404).end("not found");
  });
  server.on("connection", () => void connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    port,
    connections: () => connections,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function serveBytes(bytes: Buffer, contentType: string): OriginHandler {
  return (_request, response) => {
    response.writeHead(200, { "Content-Type": contentType, "Content-Length": bytes.length });
    response.end(bytes);
  };
}
