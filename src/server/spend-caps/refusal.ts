import { SPEND_CAPS } from "@/lib/schemas/spend-cap";
import type { ApiKeyConfig } from "@/server/config-cache";
import { AppError } from "@/server/errors";

/**
 * The 429 a key's new transform gets while the cap it reached holds (until its UTC day or month ends),
 * with the headers of a rate limit (contract §4): retrying sooner cannot succeed. Null when the key is
 * under its caps, or the period of the one it reached is over.
 */
export function capRefusal(apiKey: Pick<ApiKeyConfig, "capReached">, nowMs: number): AppError | null {
  const reached = apiKey.capReached;
  if (!reached || reached.untilMs <= nowMs) return null;
  const until = new Date(reached.untilMs).toISOString();
  return new AppError("SPEND_CAP_REACHED", {
    message: `This key reached its cap of ${reached.limit.toLocaleString("en")} ${SPEND_CAPS[reached.cap].label}: new images are refused until ${until}, images already made are still served`,
    detail: `${reached.cap} ${reached.limit}`,
    headers: {
      "Retry-After": String(Math.max(1, Math.ceil((reached.untilMs - nowMs) / 1000))),
      "X-RateLimit-Limit": String(reached.limit),
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(Math.ceil(reached.untilMs / 1000)),
    },
  });
}
