import { AppError, isAppError } from "@/server/errors";

/**
 * One deadline for a whole source fetch (DNS, connect, headers, body, every redirect hop), merged
 * with the caller's AbortSignal. Every await in the fetch is raced against it, and `signal` aborts
 * with the AppError the fetch must end with, so listeners can tear sockets down.
 */
export interface FetchBudget {
  signal: AbortSignal;
  race<T>(work: Promise<T>): Promise<T>;
  dispose(): void;
}

export function startBudget(timeoutMs: number, callerSignal?: AbortSignal): FetchBudget {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new AppError("SOURCE_TIMEOUT", { detail: `source fetch exceeded ${timeoutMs} ms` }));
  }, timeoutMs);
  const onCallerAbort = () => controller.abort(fromCallerReason(callerSignal?.reason));
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });

  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    else controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
  });
  // Nobody may be racing at the moment the budget runs out; that must not be an unhandled rejection.
  aborted.catch(() => undefined);

  return {
    signal: controller.signal,
    race: (work) => Promise.race([work, aborted]),
    dispose() {
      clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onCallerAbort);
    },
  };
}

function fromCallerReason(reason: unknown): AppError {
  if (isAppError(reason)) return reason;
  if (reason instanceof Error && reason.name === "TimeoutError") {
    return new AppError("SOURCE_TIMEOUT", {
      detail: "caller's deadline passed during the source fetch",
      cause: reason,
    });
  }
  return new AppError("SOURCE_FAILED", { detail: "source fetch aborted by the caller", cause: reason });
}
