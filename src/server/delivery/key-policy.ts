import { isPresetsOnly } from "@/lib/schemas/key-policy";
import type { ApiKeyConfig } from "@/server/config-cache";
import { AppError } from "@/server/errors";
import { operationNames } from "@/server/image";
import { isRefererAllowed } from "@/server/source";
import type { ImageRequestParts } from "./parse-request";
import { isSinglePreset } from "./presets";

/** The signer's clock and the server's may differ: a URL is not refused for a minute's drift. */
export const CLOCK_SKEW_SECONDS = 60;

type PolicyParts = Pick<ImageRequestParts, "operationsSegment" | "operations" | "exp">;

/**
 * What the key itself may sign, checked from its cached record after its signature (so only a URL its
 * holder made learns the policy): the operations its tokens name, the preset, how far ahead `exp`
 * is, and the page that embeds it. Throws KEY_POLICY_REFUSED, saying what to change, or
 * REFERER_NOT_ALLOWED (as the project's own list does). The project's rules still apply after it.
 */
export function enforceKeyPolicy(
  apiKey: Pick<ApiKeyConfig, "policy">,
  parts: PolicyParts,
  referer: string | null,
  nowMs: number,
): void {
  const { policy } = apiKey;
  if (!policy) return;
  if (policy.operations) {
    const allowed = policy.operations;
    const refused = operationNames(parts.operationsSegment).filter((name) => !allowed.includes(name));
    if (refused.length > 0) {
      const allows = allowed.length > 0 ? `only ${allowed.join(", ")}` : "no operations";
      refuse(`This key may not sign ${refused.join(", ")}: its policy allows ${allows}`);
    }
  }
  // Presets only means one preset: `_` (the original, whole) is not one.
  if (isPresetsOnly(policy.operations) && !isSinglePreset(parts.operations)) {
    refuse("This key's URLs must be one preset (pr_{name}) and nothing else");
  }
  const preset = parts.operations.preset;
  if (policy.presets && preset !== undefined && !policy.presets.includes(preset)) {
    refuse(`This key may not sign the preset ${preset}`);
  }
  if (policy.maxExpirySeconds !== null) {
    if (parts.exp === undefined) refuse(`This key's URLs must carry exp, at most ${policy.maxExpirySeconds} s ahead`);
    if (parts.exp - nowMs / 1000 > policy.maxExpirySeconds + CLOCK_SKEW_SECONDS) {
      refuse(`This key's URLs may expire at most ${policy.maxExpirySeconds} s ahead`);
    }
  }
  if (!isRefererAllowed(referer, policy.referers)) {
    throw new AppError("REFERER_NOT_ALLOWED", { detail: "not on the key's referer list" });
  }
}

function refuse(message: string): never {
  throw new AppError("KEY_POLICY_REFUSED", { message });
}
