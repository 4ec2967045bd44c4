import { eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { teams } from "@/server/db/schema";
import { nameSchema, slugSchema } from "./slugs";

export interface TeamRow {
  id: string;
  name: string;
  slug: string;
}

export async function createTeam(db: Database, input: { name: string; slug: string }): Promise<TeamRow> {
  const values = { name: nameSchema.parse(input.name), slug: slugSchema.parse(input.slug) };
  const [row] = await db.insert(teams).values(values).returning({ id: teams.id, name: teams.name, slug: teams.slug });
  return row!;
}

export async function findTeamBySlug(db: Database, slug: string): Promise<TeamRow | null> {
  const [row] = await db.select({ id: teams.id, name: teams.name, slug: teams.slug }).from(teams).where(eq(teams.slug, slug));
  return row ?? null;
}
