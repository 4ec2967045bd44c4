import { z } from "zod";

const source = z
  .string()
  .trim()
  .min(1, { error: "Enter the source URL to purge" })
  .max(2000, "At most 2000 characters");

/** The purge form: one source, every variant of it. */
export const purgeSourceSchema = z.object({ source });

/** A purge: one source, or every result of the project without one. */
export const purgeSchema = z.object({ source: source.optional() });
