import { z } from "zod";

/**
 * Longest expiry the tester signs with: its URLs are for trying things, not for pages. Below admin it
 * must sign with one, so a member's URLs stop working at most this long after they leave the team.
 */
export const MAX_TEST_URL_SECONDS = 7 * 24 * 3600;

export const signUrlSchema = z.object({
  keyId: z.uuid("Choose a key"),
  // As a preset's: room for the longest caption beside other tokens.
  operations: z.string().max(2000, "At most 2000 characters"),
  source: z.string().trim().min(1, "Enter a source").max(2000, "At most 2000 characters"),
  /** null: never expires (admins only). */
  expiresInSeconds: z.number().int().min(1).max(MAX_TEST_URL_SECONDS).nullable(),
});

/** The tester's fields: the lifetime as its select holds it, a number of seconds or "never". */
export const signUrlFormSchema = signUrlSchema.extend({
  expiresInSeconds: z
    .string()
    .transform((choice) => (choice === "never" ? null : Number(choice)))
    .pipe(signUrlSchema.shape.expiresInSeconds),
});
