import { z } from "zod";

/** Lowercase letters, digits and inner hyphens, 2–40 characters: safe in URLs and Redis keys. */
export const slugSchema = z
  .string()
  .trim()
  .min(2, "Slug must have at least 2 characters")
  .max(40, "Slug must have at most 40 characters")
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, "Slug may contain lowercase letters, digits and inner hyphens only");

export const nameSchema = z.string().trim().min(1, "Name is required").max(80, "Name must have at most 80 characters");

/** An optional whole number typed into a text box: empty is null ("use the default"). */
export function optionalCount(max: number) {
  const bounds = `a whole number from 1 to ${max.toLocaleString("en")}`;
  return z
    .string()
    .trim()
    .transform((text) => (text === "" ? null : Number(text)))
    .pipe(
      z
        .number({ error: `Enter ${bounds}` })
        .int(`Enter ${bounds}`)
        .min(1, `Enter ${bounds}`)
        .max(max, `Enter ${bounds}`)
        .nullable(),
    );
}
