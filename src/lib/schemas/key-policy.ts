import { z } from "zod";
import { presetNameSchema } from "./preset";
import { formatHostList, parseHostList } from "./project";

/** A URL's expiry may be at most this far ahead under a policy: ten years, as the longest a key itself lives. */
export const MAX_POLICY_EXPIRY_SECONDS = 10 * 365 * 24 * 3600;

/**
 * What one API key may sign, on top of everything its project allows (a key given to a partner can do
 * less than the owner's). Null lists and limits mean "as the project allows". Operation names are the
 * URL's token names (`w`, `f`, `pr`…); the domain checks them against the operations registry.
 */
export const keyPolicySchema = z.object({
  /** Token names the key's URLs may use; null: any. `["pr"]` makes the key presets-only. */
  operations: z
    .array(z.string().regex(/^[a-z]{1,16}$/, "An operation is its token's name, such as w or pr"))
    .max(64, "At most 64 operations")
    .nullable(),
  /** Presets its URLs may name with pr_; null: any of the project's. */
  presets: z.array(presetNameSchema).max(100, "At most 100 presets").nullable(),
  /** Its URLs must carry exp, at most this many seconds ahead; null: no limit, exp optional. */
  maxExpirySeconds: z
    .number()
    .int("A whole number of seconds")
    .min(60, "At least a minute")
    .max(MAX_POLICY_EXPIRY_SECONDS, "At most ten years")
    .nullable(),
  /** Pages its URLs may be embedded in; the project's own referer list must pass too. Empty: the project's alone. */
  referers: z.array(z.string().max(300)).max(100, "At most 100 hosts"),
});

export type KeyPolicy = z.infer<typeof keyPolicySchema>;

/** The policy dialog's longest-lifetime choices; "" is no limit. */
export const policyLifetimes = [
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "1 day" },
  { seconds: 7 * 86_400, label: "7 days" },
  { seconds: 30 * 86_400, label: "30 days" },
  { seconds: 365 * 86_400, label: "1 year" },
] as const;

/** Names are typed as a list: commas, spaces or lines between them. */
const names = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** The operations field: empty for any, `_` for none (only the original, whole), else names. */
function operationList(text: string): string[] | null {
  if (text.trim() === "_") return [];
  return listOrNull(names(text));
}

const listOrNull = (list: string[]) => (list.length > 0 ? list : null);

/** `operations: ["pr"]`: the dialog's "presets only". */
export function isPresetsOnly(operations: readonly string[] | null | undefined): boolean {
  return operations?.length === 1 && operations[0] === "pr";
}

/** The policy dialog's fields, as text, turned into a policy: an empty field restricts nothing. */
export const keyPolicyFormSchema = z
  .object({
    presetsOnly: z.boolean(),
    operations: z.string(),
    presets: z.string(),
    maxExpirySeconds: z.string(),
    referers: z.string(),
  })
  .transform((form): KeyPolicy => ({
    operations: form.presetsOnly ? ["pr"] : operationList(form.operations),
    presets: listOrNull(names(form.presets)),
    maxExpirySeconds: form.maxExpirySeconds === "" ? null : Number(form.maxExpirySeconds),
    referers: parseHostList(form.referers),
  }))
  .pipe(keyPolicySchema);

export type KeyPolicyForm = z.input<typeof keyPolicyFormSchema>;

/** A stored policy (or none) as the dialog shows it. */
export function keyPolicyFormValues(policy: KeyPolicy | null): KeyPolicyForm {
  const presetsOnly = isPresetsOnly(policy?.operations);
  return {
    presetsOnly,
    operations: presetsOnly ? "" : policy?.operations?.length === 0 ? "_" : (policy?.operations?.join(", ") ?? ""),
    presets: policy?.presets?.join(", ") ?? "",
    maxExpirySeconds: policy?.maxExpirySeconds?.toString() ?? "",
    referers: formatHostList(policy?.referers ?? []),
  };
}
