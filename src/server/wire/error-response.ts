import type { AppError } from "@/server/errors";
import { toWebResponse, type HttpAnswer } from "./answer";

/**
 * The one shape of every error the HTTP surface returns (contract §4): JSON with the public message,
 * the public code and the request id; never cached; HEAD gets the headers alone.
 */
export function errorAnswer(error: AppError, requestId: string): HttpAnswer {
  const body = Buffer.from(JSON.stringify({ error: error.publicMessage, code: error.publicCode, requestId }));
  const headers = new Headers({
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Request-Id": requestId,
    ...error.headers,
  });
  return { status: error.status, headers, body };
}

export function errorResponse(error: AppError, requestId: string, method = "GET"): Response {
  return toWebResponse(errorAnswer(error, requestId), method);
}
