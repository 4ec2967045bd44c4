import { TRPCError } from "@trpc/server";
import { z, ZodError } from "zod";
import { AppError, toAppError } from "@/server/errors";

type TrpcCode = ConstructorParameters<typeof TRPCError>[0]["code"];

/** HTTP status of a catalogue entry → the tRPC code that answers with the same status. */
const codeByStatus: Record<number, TrpcCode> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  410: "NOT_FOUND",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  499: "CLIENT_CLOSED_REQUEST",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
};

/**
 * The one mapping from what procedures throw to what the browser sees. Domain errors keep their
 * catalogue message; invalid input says which field and why; anything else is a bug and becomes a
 * generic 500 whose cause stays on the server (logged with the request id).
 */
export function toTrpcError(error: unknown): TRPCError {
  const original = error instanceof TRPCError && error.cause ? error.cause : error;
  if (original instanceof ZodError) {
    const message = original.issues[0]?.message ?? "Invalid input";
    return new TRPCError({
      code: "BAD_REQUEST",
      message,
      cause: new AppError("INVALID_INPUT", { message, cause: original }),
    });
  }
  if (original instanceof TRPCError) return original;
  const appError = toAppError(original);
  return new TRPCError({
    code: codeByStatus[appError.status] ?? "INTERNAL_SERVER_ERROR",
    message: appError.publicMessage,
    cause: appError,
  });
}

/** Seconds a refusal asks the client to wait (its Retry-After): a dashboard limit's 429; null otherwise. */
export function retryAfterOf(error: TRPCError): number | null {
  const value = error.cause instanceof AppError ? error.cause.headers["Retry-After"] : undefined;
  return value === undefined ? null : Number(value);
}

/** The catalogue code of a mapped error, for the client (e.g. to tell SLUG_TAKEN from NOT_FOUND). */
export function appCodeOf(error: TRPCError): string {
  return error.cause instanceof AppError ? error.cause.code : error.code;
}

/**
 * Invalid input per field, as zod flattens it (`{ name: ["At most 80 characters"] }`), or the field a
 * domain refusal names (a taken slug, a refused host), for a form to show next to each field; null when
 * the error is not about input fields.
 */
export function fieldErrorsOf(error: TRPCError): Record<string, string[]> | null {
  if (error.cause instanceof AppError && error.cause.field !== undefined)
    return { [error.cause.field]: [error.cause.publicMessage] };
  const cause = error.cause instanceof AppError ? error.cause.cause : error.cause;
  if (!(cause instanceof ZodError)) return null;
  const { fieldErrors } = z.flattenError(cause);
  const entries = Object.entries(fieldErrors).filter((entry): entry is [string, string[]] => Array.isArray(entry[1]));
  return entries.length > 0 ? Object.fromEntries(entries) : null;
}
