import { isPresetsOnly, policyLifetimes, type KeyPolicy } from "@/lib/schemas/key-policy";

/** A lifetime in the words the dialog offers it, or in seconds when set otherwise (by the API). */
export function lifetimeLabel(seconds: number): string {
  return policyLifetimes.find((choice) => choice.seconds === seconds)?.label ?? `${seconds.toLocaleString("en")} s`;
}

/**
 * What a key with this policy refuses, a line per rule, for the policy dialog's preview and the key
 * list; empty when it refuses nothing beyond the project's rules.
 */
export function policyRefusals(policy: KeyPolicy | null): string[] {
  if (!policy) return [];
  const lines: string[] = [];
  const { operations, presets, maxExpirySeconds, referers } = policy;
  if (isPresetsOnly(operations)) lines.push("URLs that are not one preset (pr_…)");
  else if (operations?.length === 0) lines.push("URLs with any operation (only _ is signed)");
  else if (operations) lines.push(`URLs with operations other than ${operations.join(", ")}`);
  if (presets) lines.push(`Presets other than ${presets.join(", ")}`);
  if (maxExpirySeconds !== null)
    lines.push(`URLs without exp, or expiring more than ${lifetimeLabel(maxExpirySeconds)} ahead`);
  if (referers.length > 0) lines.push(`Pages other than ${referers.join(", ")}`);
  return lines;
}
