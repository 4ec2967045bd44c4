import type { AppError } from "@/server/errors";

/**
 * The one shape of every error the HTTP surface returns (contract §4): JSON with the public message,
 * the public code and the request id; never cached; HEAD gets the headers alone.
 */
export function errorResponse(error: AppError, requestId: string, method = "GET"): Response {
  const body = JSON.stringify({ error: error.publicMessage, code: error.publicCode, requestId });
  return new Response(method === "HEAD" ? null : body, {
    status: error.status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "X-Request-Id": requestId,
      ...error.headers,
    },
  });
}
