import type { IncomingMessage } from "node:http";
import { AppError } from "@/server/errors";
import type { FetchedSource } from "./types";

/**
 * Maps a final (non-redirect) response to bytes or to the catalogue's error, reading the body under
 * the byte cap. Only 200 carries an image, and 304 answers a conditional request (the source cache's
 * revalidation); we never send range requests.
 */
export async function readResponse(
  response: IncomingMessage,
  url: URL,
  maxBytes: number,
  conditional = false,
): Promise<FetchedSource> {
  const status = response.statusCode ?? 0;
  const where = `${url.origin}${url.pathname}`;
  const answered = { status, headers: { ...response.headers } };
  if (status === 304 && conditional) {
    response.resume();
    return { bytes: Buffer.alloc(0), contentType: null, finalUrl: url.href, response: answered, notModified: true };
  }
  if (status === 404) throw new AppError("SOURCE_NOT_FOUND", { detail: `${where} answered 404` });
  if (status === 410) throw new AppError("SOURCE_GONE", { detail: `${where} answered 410` });
  if (status !== 200) throw new AppError("SOURCE_FAILED", { detail: `${where} answered ${status}` });
  const encoding = response.headers["content-encoding"];
  if (encoding !== undefined && encoding.toLowerCase() !== "identity") {
    throw new AppError("SOURCE_FAILED", { detail: `${where} sent Content-Encoding ${encoding} despite identity` });
  }
  const bytes = await readCappedBody(response, maxBytes, where);
  return { bytes, contentType: response.headers["content-type"] ?? null, finalUrl: url.href, response: answered };
}

/**
 * Reads the body, refusing a declared Content-Length over the cap before reading anything and
 * destroying the socket the moment the running count passes the cap (chunked or lying origins).
 */
export function readCappedBody(response: IncomingMessage, maxBytes: number, where: string): Promise<Buffer> {
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return Promise.reject(tooLarge(`${where} declared ${declared} bytes`, maxBytes));
  }
  // With a declared length, chunks are copied into one buffer as they come and dropped at once: the
  // process holds each source once instead of twice (chunks, then their concatenation). A body shorter
  // or longer than declared is refused at the end.
  const body = Number.isFinite(declared) && declared > 0 ? Buffer.allocUnsafeSlow(declared) : undefined;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const fail = (error: AppError) => {
      response.destroy();
      response.socket?.destroy();
      reject(error);
    };
    response.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) fail(tooLarge(`${where} streamed more than the cap`, maxBytes));
      else if (body && total <= body.length) chunk.copy(body, total - chunk.length);
      else chunks.push(chunk);
    });
    response.once("end", () => {
      if (!body) resolve(Buffer.concat(chunks, total));
      else if (total === body.length) resolve(body);
      else fail(new AppError("SOURCE_FAILED", { detail: `${where} sent ${total} bytes, declared ${body.length}` }));
    });
    response.on("error", (cause) => fail(new AppError("SOURCE_FAILED", { detail: `${where} body failed`, cause })));
    response.once("close", () => {
      if (!response.complete) fail(new AppError("SOURCE_FAILED", { detail: `${where} closed before the body ended` }));
    });
  });
}

function tooLarge(detail: string, maxBytes: number): AppError {
  return new AppError("SOURCE_TOO_LARGE", { detail: `${detail} (limit ${maxBytes})` });
}
