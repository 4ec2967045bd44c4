import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on loopback: keeps every request it gets, and answers each with the status
 * `answer` says at that moment (200 unless a test changes it).
 */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  let status = 200;
  let beforeAnswer: ((request: ReceivedWebhook) => Promise<void>) | null = null;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const got = { path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(got);
      const hold = beforeAnswer;
      beforeAnswer = null;
      void (hold ? hold(got) : Promise.resolve()).finally(() =>
        response.writeHead(status, { "content-type": "text/plain" }).end("ok"),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = "/hooks/optstuff") => `http://127.0.0.1:${port}${path}`,
    port,
    received,
    answer(next: number) {
      status = next;
    },
    /** Runs `work` when the next request has arrived, and answers it only after (a change made mid-delivery). */
    beforeNextAnswer(work: (request: ReceivedWebhook) => Promise<void>) {
      beforeAnswer = work;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
