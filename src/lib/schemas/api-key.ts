import { z } from "zod";
import { boundedCount, nameSchema, optionalCount } from "./names";
import { spendCapFormSchema, spendCapSchema } from "./spend-cap";

export const MAX_KEY_PER_MINUTE = 100_000;
export const MAX_KEY_PER_DAY = 100_000_000;

/**
 * Bounds an admin may set: rate limits (null keeps the defaults, 60 per minute, 10,000 per day) and the
 * spend cap (null: none).
 */
export const keyLimitsSchema = z
  .object({
    rateLimitPerMinute: boundedCount(MAX_KEY_PER_MINUTE).nullable(),
    rateLimitPerDay: boundedCount(MAX_KEY_PER_DAY).nullable(),
    spendCap: spendCapSchema.nullable(),
  })
  .partial();

/** The longest an old key pair keeps working after a rotation. */
export const MAX_ROTATION_GRACE_SECONDS = 30 * 24 * 3600;

export const rotationGraceSchema = z
  .number()
  .int("A whole number of seconds")
  .min(0, "A grace period cannot be negative")
  .max(MAX_ROTATION_GRACE_SECONDS, "A grace period is at most 30 days");

/** The Rotate dialog: the grace period as its select holds it. */
export const rotateFormSchema = z.object({
  graceSeconds: z.string().regex(/^\d+$/, "Choose a grace period").transform(Number).pipe(rotationGraceSchema),
});

export const expiryChoiceValues = ["never", "30", "90", "365", "custom"] as const;
export type ExpiryChoice = (typeof expiryChoiceValues)[number];

const keyFormFields = {
  name: nameSchema,
  /** A number of days from now, never, or "custom" with a day (UTC). */
  choice: z.enum(expiryChoiceValues),
  date: z.string(),
};

const customNeedsDay = (key: { choice: ExpiryChoice; date: string }) =>
  key.choice !== "custom" || /^\d{4}-\d{2}-\d{2}$/.test(key.date);
const chooseDay = { path: ["date"], error: "Choose the day the key expires" };

/** The New key dialog's fields. */
export const newKeyFormSchema = z.object(keyFormFields).refine(customNeedsDay, chooseDay);

/** The Edit dialog's fields: limits as text, empty for the defaults; caps as text, empty for none. */
export const keyFormSchema = z
  .object({
    ...keyFormFields,
    rateLimitPerMinute: optionalCount(MAX_KEY_PER_MINUTE),
    rateLimitPerDay: optionalCount(MAX_KEY_PER_DAY),
    spendCap: spendCapFormSchema.optional(),
  })
  .refine(customNeedsDay, chooseDay);
