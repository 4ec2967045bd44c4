import type { ServerResponse } from "node:http";

/**
 * An HTTP answer before it meets a transport. The image route writes it to Node's response itself
 * (writeNodeAnswer, below) because Next's route-handler writer drops Content-Length and adds Vary tokens
 * of its own; tests and the other routes turn it into a web Response.
 */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The body a GET gets; a HEAD is answered the same headers (its length included) and no body. */
  body: Uint8Array | null;
}

/** Statuses that never carry a body, nor a Content-Length describing one (RFC 9110 §8.6). */
const BODYLESS = new Set([204, 304]);

/**
 * Content-Length always states the GET body's length, HEAD included; the writers own it. An answer is
 * written once, so its own headers are set in place (no copy on the image route's hot path).
 */
function framedHeaders(answer: HttpAnswer): Headers {
  const { headers } = answer;
  headers.delete("content-length");
  // A redirect has no body: it says so, rather than leaving the framing to the writer.
  if (!BODYLESS.has(answer.status)) headers.set("content-length", String(answer.body?.byteLength ?? 0));
  return headers;
}

export function toWebResponse(answer: HttpAnswer, method: string): Response {
  const body = method === "HEAD" || BODYLESS.has(answer.status) ? null : answer.body;
  // Buffers are ArrayBuffer-backed (never shared memory); the cast only narrows the type, no copy.
  return new Response(body as Uint8Array<ArrayBuffer> | null, {
    status: answer.status,
    headers: framedHeaders(answer),
  });
}

/** Writes the answer to Node's response as is: one write, the exact length, nothing added. */
export function writeNodeAnswer(res: ServerResponse, answer: HttpAnswer, method: string): void {
  res.statusCode = answer.status;
  for (const [name, value] of framedHeaders(answer)) res.setHeader(name, value);
  if (method === "HEAD" || BODYLESS.has(answer.status) || !answer.body) res.end();
  else res.end(answer.body);
}
