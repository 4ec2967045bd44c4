import { z } from "zod";
import { boundedCount, optionalCount } from "./names";

/**
 * What a cap counts and over which UTC period, how it is said and how the dialog asks for it; a table,
 * so the check, the route, the dialog and the command line agree.
 */
export const SPEND_CAPS = {
  transformsPerDay: {
    measure: "transforms",
    period: "day",
    label: "transforms a day",
    field: "Cap on transforms a day",
  },
  transformsPerMonth: {
    measure: "transforms",
    period: "month",
    label: "transforms a month",
    field: "Cap on transforms a month",
  },
  bytesPerDay: { measure: "bytes", period: "day", label: "bytes delivered a day", field: "Cap on MB delivered a day" },
  bytesPerMonth: {
    measure: "bytes",
    period: "month",
    label: "bytes delivered a month",
    field: "Cap on MB delivered a month",
  },
} as const;

export type SpendCapName = keyof typeof SPEND_CAPS;
export type CapPeriod = (typeof SPEND_CAPS)[SpendCapName]["period"];
export const SPEND_CAP_NAMES = Object.keys(SPEND_CAPS) as SpendCapName[];

export const MAX_CAP_TRANSFORMS = 10_000_000_000;
/** A petabyte: more than any key delivers in a month, and well inside a safe integer. */
export const MAX_CAP_BYTES = 10 ** 15;
/** The dialog counts bytes in megabytes (10^6 bytes, as the usage page does). */
export const MEGABYTE = 1_000_000;

/**
 * How much one key may spend per UTC day and month; null: no cap of that kind. At 80 % the team is
 * alerted, at 100 % the key's new transforms are refused until the period ends (docs/dashboard.md).
 */
export const spendCapSchema = z
  .object({
    transformsPerDay: boundedCount(MAX_CAP_TRANSFORMS).nullable(),
    transformsPerMonth: boundedCount(MAX_CAP_TRANSFORMS).nullable(),
    bytesPerDay: boundedCount(MAX_CAP_BYTES).nullable(),
    bytesPerMonth: boundedCount(MAX_CAP_BYTES).nullable(),
  })
  .refine((cap) => inOrder(cap.transformsPerDay, cap.transformsPerMonth), {
    path: ["transformsPerDay"],
    error: "A day's transforms cannot be capped above the month's",
  })
  .refine((cap) => inOrder(cap.bytesPerDay, cap.bytesPerMonth), {
    path: ["bytesPerDay"],
    error: "A day's bytes cannot be capped above the month's",
  });

export type SpendCap = z.infer<typeof spendCapSchema>;

const inOrder = (day: number | null, month: number | null) => day === null || month === null || day <= month;

/** An amount of a cap's measure as people read it: transforms counted, bytes in megabytes. */
export function capAmount(cap: SpendCapName, value: number): string {
  return SPEND_CAPS[cap].measure === "bytes"
    ? `${(value / MEGABYTE).toLocaleString("en", { maximumFractionDigits: 1 })} MB`
    : value.toLocaleString("en");
}

/** Whether two caps hold a key to the same amounts (jsonb keeps its own key order: compared by name). */
export function sameCap(a: SpendCap | null, b: SpendCap | null): boolean {
  return SPEND_CAP_NAMES.every((name) => (a?.[name] ?? null) === (b?.[name] ?? null));
}

/** What follows a cap's amounts: "transforms a day", "delivered a month" (capAmount says MB). */
export const capUnit = (cap: SpendCapName) => SPEND_CAPS[cap].label.replace("bytes ", "");

/** A cap that caps nothing is stored as none. */
export function capOrNull(cap: SpendCap | null): SpendCap | null {
  return cap && SPEND_CAP_NAMES.some((name) => cap[name] !== null) ? cap : null;
}

/**
 * Megabytes as typed, to six decimals (a byte): the bytes a cap holds are given back exactly however
 * they were set (the API and the command line take bytes).
 */
const optionalMegabytes = (max: number) => {
  const message = `Enter megabytes from 0.000001 to ${(max / MEGABYTE).toLocaleString("en")}, such as 500 or 0.5`;
  return z
    .string()
    .trim()
    .refine((text) => text === "" || /^\d{1,10}(\.\d{1,6})?$/.test(text), message)
    .transform((text) => (text === "" ? null : Math.round(Number(text) * MEGABYTE)))
    .pipe(z.number().int().min(1, message).max(max, message).nullable());
};

/** The key dialog's cap fields, as text: empty is no cap; bytes in megabytes. */
export const spendCapFormSchema = z
  .object({
    transformsPerDay: optionalCount(MAX_CAP_TRANSFORMS),
    transformsPerMonth: optionalCount(MAX_CAP_TRANSFORMS),
    bytesPerDay: optionalMegabytes(MAX_CAP_BYTES),
    bytesPerMonth: optionalMegabytes(MAX_CAP_BYTES),
  })
  .pipe(spendCapSchema);

export type SpendCapForm = z.input<typeof spendCapFormSchema>;

/** A stored cap (or none) as the dialog shows it. */
export function spendCapFormValues(cap: SpendCap | null): SpendCapForm {
  const text = (value: number | null | undefined, unit = 1) =>
    value == null ? "" : unit === 1 ? String(value) : (value / unit).toFixed(6).replace(/\.?0+$/, "");
  return {
    transformsPerDay: text(cap?.transformsPerDay),
    transformsPerMonth: text(cap?.transformsPerMonth),
    bytesPerDay: text(cap?.bytesPerDay, MEGABYTE),
    bytesPerMonth: text(cap?.bytesPerMonth, MEGABYTE),
  };
}
