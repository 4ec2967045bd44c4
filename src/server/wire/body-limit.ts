import { AppError } from "@/server/errors";

/**
 * The largest request body each non-image route reads, in bytes: one table, so the caps are seen
 * together. The image API takes no body (GET and HEAD only).
 * - auth: better-auth's JSON (an e-mail, a password of at most 128 characters, a name) is well under
 *   1 KB; 64 KB leaves room for any of its other endpoints without letting a sign-in post buffer
 *   megabytes (a 64 MB post took RSS from 443 to 746 MB before this cap).
 * - trpc: a batch of the dashboard's inputs, whose largest (a project's host lists) is a few KB.
 * - cron: the schedulers send nothing; a small body from another scheduler is read and ignored.
 */
export const BODY_LIMITS = { auth: 64 * 1024, trpc: 1024 * 1024, cron: 16 * 1024 } as const satisfies Record<
  string,
  number
>;

/**
 * The request's body, read up to `maxBytes`: a declared Content-Length over the cap is refused before
 * a byte is read, and a body without one (chunked) is read as it streams and refused the moment it
 * passes the cap. Null without a body. The 413 asks to close the connection, so the server stops
 * receiving the rest instead of reading it to discard it.
 */
export async function readBodyWithin(request: Request, maxBytes: number): Promise<ArrayBuffer | null> {
  const declared = request.headers.get("content-length");
  // Node's parser already refuses a malformed length; a body it lets through is counted below anyway.
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return null;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Not cancel(): under `next start` that destroys the socket and the 413 would never be sent.
      reader.releaseLock();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return concat(chunks, total);
}

/** Request bodies the JSON-only endpoints accept: what better-auth and tRPC parse as JSON. */
export function isJsonContentType(contentType: string | null): boolean {
  return /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(contentType?.trim() ?? "");
}

function tooLarge(maxBytes: number): AppError {
  return new AppError("BODY_TOO_LARGE", { detail: `over ${maxBytes} bytes`, headers: { Connection: "close" } });
}

function concat(chunks: Uint8Array[], total: number): ArrayBuffer {
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body.buffer;
}
