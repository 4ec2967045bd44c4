/**
 * What one API key may sign (dashboard → API keys → Policy), as the server stores it. A key given to a
 * partner can do less than the owner's; null lists and limits mean "as the project allows".
 */
export interface KeyPolicy {
  /** Token names its URLs may use (`w`, `f`, `pr`…); `["pr"]`: one preset and nothing else; null: any. */
  operations: string[] | null;
  /** Presets its URLs may name with pr_; null: any of the project's. */
  presets: string[] | null;
  /** Its URLs must carry exp, at most this many seconds ahead; null: no limit. */
  maxExpirySeconds: number | null;
  /** Pages its URLs may be embedded in (checked by the server against Referer); empty: the project's list alone. */
  referers: string[];
}

/**
 * Refuses, before signing, a URL the key's policy would make the server refuse (403
 * KEY_POLICY_REFUSED), with the server's reason as a RangeError. The referer list cannot be judged
 * here: it depends on the page the image is shown in.
 */
export function checkKeyPolicy(policy: KeyPolicy, operations: string, exp: number | undefined, nowMs: number): void {
  const tokens = operations === "_" ? [] : operations.split(",");
  const names = [...new Set(tokens.map((token) => token.split("_")[0]!))];
  if (policy.operations) {
    const allowed = policy.operations;
    const refused = names.filter((name) => !allowed.includes(name));
    if (refused.length > 0) {
      const allows = allowed.length > 0 ? `only ${allowed.join(", ")}` : "no operations";
      throw new RangeError(`This key may not sign ${refused.join(", ")}: its policy allows ${allows}`);
    }
  }
  const presets = tokens.filter((token) => token.startsWith("pr_"));
  const presetsOnly = policy.operations?.length === 1 && policy.operations[0] === "pr";
  if (presetsOnly && (presets.length === 0 || tokens.length !== presets.length)) {
    throw new RangeError("This key's URLs must be one preset (pr_{name}) and nothing else");
  }
  // The server reads the last of repeated tokens.
  const preset = presets.at(-1)?.slice("pr_".length);
  if (policy.presets && preset !== undefined && !policy.presets.includes(preset)) {
    throw new RangeError(`This key may not sign the preset ${preset}`);
  }
  if (policy.maxExpirySeconds !== null) {
    if (exp === undefined)
      throw new RangeError(`This key's URLs must carry exp, at most ${policy.maxExpirySeconds} s ahead`);
    if (exp - nowMs / 1000 > policy.maxExpirySeconds)
      throw new RangeError(`This key's URLs may expire at most ${policy.maxExpirySeconds} s ahead`);
  }
}
