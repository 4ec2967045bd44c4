import { z } from "zod";
import { nameSchema } from "./names";
import { emailSchema } from "./team";

/** Passwords: long enough to resist guessing, short enough that hashing cannot be used to burn CPU. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * The sign-up form, with the bounds the auth server enforces (src/server/auth/create-auth.ts). The auth
 * server words its own refusals ("Password too short"); the form says what to do instead.
 */
export const signUpSchema = z.object({
  name: nameSchema,
  email: emailSchema,
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters`),
});

/** The sign-in form: the same fields, where only presence is checked (a wrong password says so itself). */
export const signInSchema = signUpSchema.extend({
  name: z.string(),
  email: z.string().trim().min(1, "Enter your email address"),
  password: z
    .string()
    .min(1, "Enter your password")
    .max(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters`),
});
