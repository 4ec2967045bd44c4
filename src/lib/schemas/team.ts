import { z } from "zod";
import { nameSchema, slugSchema } from "./names";

export const teamRoles = ["owner", "admin", "member"] as const;
export type TeamRole = (typeof teamRoles)[number];

/** A new team, or a team's new name and slug. */
export const teamSchema = z.object({ name: nameSchema, slug: slugSchema });

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email("Enter a valid email address"))
  .pipe(z.string().max(254));

export const invitationSchema = z.object({ email: emailSchema, role: z.enum(teamRoles) });
