import http, { type IncomingHttpHeaders } from "node:http";

/** An answer as it arrived: status, headers and body, framing included (fetch hides it, and follows redirects). */
export interface Wire {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request over a connection of its own, read with node:http. */
export function wire(url: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: options.method ?? "GET", headers: options.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    request.on("error", reject);
    request.end();
  });
}
