import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTANCE_SHARE, accountShare } from "@/server/config-cache/fair-share";
import { MAX_ENCODES } from "@/server/image/quality/auto-quality";
import { createTestApp, type TestApp, NO_REDIS } from "../../support/app";
import { callerFor, signUp, type TestUser } from "../../support/dashboard";
import { buildSignedUrl } from "../../support/signed-url";

/**
 * Whose share of the transform slots work counts against (issue 47): the account that owns the team,
 * for the image route, previews and uploads alike. Teams and projects cost nothing to make, so four
 * teams of one account are one share, not four; another account has its own.
 */
let app: TestApp;
let owner: TestUser;
let other: TestUser;
const teams: Array<{ slug: string; key: { publicKey: string; secretKey: string } }> = [];
const tenants: Array<{ tenant: string; operations: string }> = [];

async function teamWithKey(user: TestUser, slug: string, first: boolean) {
  const team = first
    ? await user.caller.account.completeOnboarding({ name: slug, slug })
    : await user.caller.account.createTeam({ name: slug, slug });
  await user.caller.project.create({ teamSlug: team.slug, name: "Site", slug: "site", allowedSourceHosts: ["local"] });
  const key = await user.caller.apiKey.create({ teamSlug: team.slug, projectSlug: "site", name: "k", expiresAt: null });
  return { slug: team.slug, key };
}

const fetchNew = (team: (typeof teams)[number], operations: string) =>
  app.fetch(
    buildSignedUrl({
      baseUrl: "http://optstuff.test",
      projectSlug: "site",
      ...team.key,
      operations,
      source: "local/photo.jpg",
    }).slice("http://optstuff.test".length),
  );

beforeAll(async () => {
  app = await createTestApp({ env: NO_REDIS });
  const produce = app.services.delivery.route.produce;
  app.services.delivery.route.produce = Object.assign(
    (input: Parameters<typeof produce>[0]) => {
      tenants.push({ tenant: input.tenant, operations: JSON.stringify(input.operations) });
      return produce(input);
    },
    { peek: produce.peek, keep: produce.keep },
  );
  owner = await signUp(app.services, "many-teams");
  other = await signUp(app.services, "other");
  for (let i = 0; i < 4; i++)
    teams.push(await teamWithKey(owner, `share-${i}-${owner.id.slice(0, 6).toLowerCase()}`, i === 0));
  teams.push(await teamWithKey(other, `share-other-${other.id.slice(0, 6).toLowerCase()}`, true));
});

afterAll(() => app?.close());

describe("the unit of fairness", () => {
  it("is the account that owns the team: four teams of one account share one share, another account has its own", async () => {
    for (const [i, team] of teams.entries()) expect((await fetchNew(team, `w_${100 + i}`)).status).toBe(200);
    const shares = tenants.map((t) => t.tenant);
    expect(shares.slice(0, 4)).toEqual(Array(4).fill(accountShare(owner.id)));
    expect(shares[4]).toBe(accountShare(other.id));
  });

  it("moves with the team's first owner, and a team the command line made before anyone signed up is the instance's", async () => {
    // The test app's own project was made by the command line before any sign-up, then adopted by the
    // first account to sign in; reading it again after that account owns it names the account.
    const config = await app.services.config.getProject(app.projectId);
    expect([INSTANCE_SHARE, accountShare(owner.id)]).toContain(config!.account);
  });

  it("takes uploads under the account's share too", async () => {
    const seen: string[] = [];
    const check = app.services.delivery.checkUpload;
    app.services.delivery.checkUpload = (bytes, tenant) => {
      seen.push(tenant);
      return check(bytes, tenant);
    };
    const caller = await callerFor(app.services, owner.cookie);
    const png = await sharp({ create: { width: 8, height: 8, channels: 4, background: "#f00" } })
      .png()
      .toBuffer();
    await caller.projectImage.upload({
      teamSlug: teams[2]!.slug,
      projectSlug: "site",
      kind: "watermark",
      base64: png.toString("base64"),
    });
    expect(seen).toEqual([accountShare(owner.id)]);
    app.services.delivery.checkUpload = check;
  });

  it("weighs a quality search by what it costs: several plain transforms' turns", async () => {
    const { jobCost } = await import("@/server/image");
    expect(jobCost({ qualityTarget: "good" })).toBe(1 + MAX_ENCODES);
    expect(jobCost({ format: "best" })).toBe(1 + MAX_ENCODES);
    expect(jobCost({ width: 100 })).toBe(1);
    expect(jobCost({ info: true, qualityTarget: "good" })).toBe(1);
    // Looking for faces: about two plain transforms more, whatever the encode.
    expect(jobCost({ width: 100, height: 100, gravity: "face" })).toBe(3);
    expect(jobCost({ info: true, gravity: "auto" })).toBe(3);
    expect(jobCost({ format: "best", gravity: "auto" })).toBe(3 + MAX_ENCODES);
    expect(jobCost({ width: 100, height: 100, gravity: "attention" })).toBe(1);
  });
});
