import { z } from "zod";

/** Lowercase letters, digits and inner hyphens, 2–40 characters: safe in URLs and Redis keys. */
export const slugSchema = z
  .string()
  .trim()
  .min(2, "Slug must have at least 2 characters")
  .max(40, "Slug must have at most 40 characters")
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, "Slug may contain lowercase letters, digits and inner hyphens only");

export const NAME_MAX_LENGTH = 80;

export const nameSchema = z
  .string()
  .trim()
  .min(1, "Name is required")
  .max(NAME_MAX_LENGTH, `Name must have at most ${NAME_MAX_LENGTH} characters`);

/** A whole number from 1 to `max`, with the one message a form and a procedure both give. */
export function boundedCount(max: number) {
  const message = `Enter a whole number from 1 to ${max.toLocaleString("en")}`;
  return z.number({ error: message }).int(message).min(1, message).max(max, message);
}

/** The same typed into a text box: empty is null ("use the default"). */
export function optionalCount(max: number) {
  return z
    .string()
    .trim()
    .transform((text) => (text === "" ? null : Number(text)))
    .pipe(boundedCount(max).nullable());
}
