import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projects, requestVariantDays, teams } from "@/server/db/schema";
import { uniqueTransformations } from "@/server/analytics/unique-transformations";
import { pruneRequestStats } from "@/server/usage/retention";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";

/** Chromium's Accept for images: AVIF first. */
const CHROME = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

let app: TestApp;
beforeAll(async () => {
  // The file counts what it serves by the UTC day: it starts clear of midnight.
  await clearOfWindowEdge(86_400_000, 120_000);
  // AVIF made after the answer for outputs of 100,000 pixels or more: the final AVIF is a variant too.
  app = await createTestApp({ env: { OPTSTUFF_AVIF_LATER_MIN_PIXELS: "100000" } });
}, 180_000);
afterAll(() => app.close());

const get = async (operations: string, accept = "image/jpeg") => {
  const response = await app.fetch(app.signedPath(operations, "local/photo.jpg"), { headers: { accept } });
  expect(response.status, operations).toBe(200);
  await response.arrayBuffer();
  return response;
};
const variantsOn = async (projectId: string, on: string) =>
  (
    await app.services.database.db
      .select({ variant: requestVariantDays.variant })
      .from(requestVariantDays)
      .where(and(eq(requestVariantDays.projectId, projectId), eq(requestVariantDays.day, on)))
  ).map((row) => row.variant);

async function laterMade(operations: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!app.outcomes.some((o) => o.cache === "later" && o.operations === operations)) {
    if (Date.now() > deadline) throw new Error(`no AVIF made later for ${operations}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("unique transformations", () => {
  it("counts each variant delivered once, however often and in whatever order its operations are written", async () => {
    await get("w_40,h_30"); // made
    await get("w_40,h_30"); // from the cache
    await get("h_30,w_40"); // the same operations, written in another order: the same variant
    await get("w_41,h_30"); // another size
    await get("w_40,h_30,f_auto", CHROME); // negotiated: AVIF for Chromium (small, so at once)
    await get("w_40,h_30,f_auto", "image/webp"); // the same URL, WebP for another browser
    // A cold, large AVIF: the WebP answered now and the AVIF made after it are two transformations.
    const interim = await get("w_600,f_auto", CHROME);
    expect(interim.headers.get("content-type")).toBe("image/webp");
    await laterMade("w_600,f_auto");
    const refused = await app.fetch(app.signedPath("w_42", "local/photo.jpg").replace(/sig=[^&]+/, "sig=x"));
    expect(refused.status).toBe(403);
    await app.settled();

    const delivered = app.outcomes.filter((o) => o.status === "success");
    expect(delivered.every((o) => typeof o.variant === "string")).toBe(true);
    const expected = new Set(delivered.map((o) => o.variant));
    expect(expected.size).toBe(6);
    expect(new Set(await variantsOn(app.projectId, day(0)))).toEqual(expected);
    expect(await uniqueTransformations(app.services.database.db, { projectId: app.projectId }, { to: day(0) })).toEqual(
      {
        from: day(-29),
        to: day(0),
        count: 6,
        atLeast: false,
      },
    );
  });

  it("counts the 30 days ending with the range: a variant seen on several days once, older days not", async () => {
    const db = app.services.database.db;
    const [today] = await variantsOn(app.projectId, day(0));
    await db.insert(requestVariantDays).values([
      { projectId: app.projectId, day: day(-10), variant: today! }, // seen today too: still one
      { projectId: app.projectId, day: day(-29), variant: "first-day-of-window" },
      { projectId: app.projectId, day: day(-30), variant: "a-day-too-old" },
    ]);
    const project = { projectId: app.projectId };
    expect((await uniqueTransformations(db, project, { to: day(0) })).count).toBe(7);
    // Ending ten days ago: the variant seen then, the window's first day and the day before it.
    expect(await uniqueTransformations(db, project, { to: day(-10) })).toEqual({
      from: day(-39),
      to: day(-10),
      count: 3,
      atLeast: false,
    });
  });

  it("counts a team's projects apart and never another team's", async () => {
    const db = app.services.database.db;
    const [team] = await db.select({ teamId: projects.teamId }).from(projects).where(eq(projects.id, app.projectId));
    const [today] = await variantsOn(app.projectId, day(0));
    // The same variant key in a second project of the team is a transformation of its own.
    const [sibling] = await db
      .insert(projects)
      .values({ teamId: team!.teamId, name: "Sibling", slug: "sibling-unique" })
      .returning({ id: projects.id });
    await db.insert(requestVariantDays).values({ projectId: sibling!.id, day: day(0), variant: today! });
    // Another team's project with the same variant key and a variant of its own: not this team's.
    const [other] = await db.insert(teams).values({ name: "Other", slug: "other-unique" }).returning({ id: teams.id });
    const [stranger] = await db
      .insert(projects)
      .values({ teamId: other!.id, name: "Stranger", slug: "stranger" })
      .returning({ id: projects.id });
    await db.insert(requestVariantDays).values([
      { projectId: stranger!.id, day: day(0), variant: today! },
      { projectId: stranger!.id, day: day(0), variant: "theirs" },
    ]);
    expect((await uniqueTransformations(db, { teamId: other!.id }, { to: day(0) })).count).toBe(2);
    expect((await uniqueTransformations(db, { teamId: team!.teamId }, { to: day(0) })).count).toBe(8);
    expect((await uniqueTransformations(db, { projectId: sibling!.id }, { to: day(0) })).count).toBe(1);
    // Deleting a project deletes its days (cascade).
    await db.delete(projects).where(eq(projects.id, sibling!.id));
    expect((await uniqueTransformations(db, { teamId: team!.teamId }, { to: day(0) })).count).toBe(7);
  });

  it("keeps the days as long as the request statistics", async () => {
    const db = app.services.database.db;
    await db.insert(requestVariantDays).values([
      { projectId: app.projectId, day: day(-90), variant: "kept" },
      { projectId: app.projectId, day: day(-92), variant: "pruned" },
    ]);
    await pruneRequestStats(db, new Date());
    expect(await variantsOn(app.projectId, day(-90))).toEqual(["kept"]);
    expect(await variantsOn(app.projectId, day(-92))).toEqual([]);
  });
});
