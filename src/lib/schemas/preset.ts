import { z } from "zod";

/** A preset's name as URLs carry it after pr_. */
export const PRESET_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

export const presetNameSchema = z
  .string()
  .trim()
  .regex(PRESET_NAME, { error: "Use 1–32 lower-case letters, digits and dashes, starting with a letter or digit" });

export const presetSchema = z.object({
  name: presetNameSchema,
  // Room for the longest caption (txt_ of 200 four-byte characters is 1071 characters) beside other tokens.
  operations: z.string().trim().min(1, "Enter the operations").max(2000, { error: "At most 2000 characters" }),
});
