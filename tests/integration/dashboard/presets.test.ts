import sharp from "sharp";
import { requestLog } from "@/server/db/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";
import { tokenOf } from "../../support/tenant-world";
import { buildSignedUrl } from "../../support/signed-url";

/** Presets from the dashboard's procedures to the pixels the real image route makes of them. */
let app: TestApp;
let owner: TestUser;
let teamSlug: string;
let key: { publicKey: string; secretKey: string };
const projectSlug = "site";

beforeAll(async () => {
  app = await createTestApp();
  owner = await signUp(app.services, "presets");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Presets",
      slug: `presets-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Site", slug: projectSlug, allowedSourceHosts: ["local"] });
  key = await owner.caller.apiKey.create({ teamSlug, projectSlug, name: "presets", expiresAt: null });
}, 30_000);
afterAll(() => app.close());

const scope = () => ({ teamSlug, projectSlug });
const get = (operations: string, headers: Record<string, string> = {}) => {
  const url = buildSignedUrl({ baseUrl: "http://x", projectSlug, ...key, operations, source: "local/photo.jpg" });
  return app.fetch(url.slice(url.indexOf("/api/v1/")), { headers });
};
const sizeOf = async (response: Response) => {
  const { width, height, format } = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
  return [format, width, height];
};

describe("presets", () => {
  it("expand in URLs, other tokens override them, and an edit changes that preset's output and ETag only", async () => {
    await owner.caller.preset.save({ ...scope(), name: "thumb", operations: "s_50x50,f_png" });
    await owner.caller.preset.save({ ...scope(), name: "wide", operations: " w_80,f_webp " });
    const thumb = await get("pr_thumb");
    expect(await sizeOf(thumb)).toEqual(["png", 50, 50]);
    const wide = await get("pr_wide");
    expect(await sizeOf(wide)).toEqual(["webp", 80, 53]);
    // The URL's own tokens win: a 30 px wide thumb in JPEG.
    expect(await sizeOf(await get("pr_thumb,w_30,f_jpg"))).toEqual(["jpeg", 30, 50]);

    await owner.caller.preset.save({ ...scope(), name: "thumb", operations: "s_60x40,f_png" });
    const edited = await get("pr_thumb");
    expect(await sizeOf(edited)).toEqual(["png", 60, 40]);
    expect(edited.headers.get("etag")).not.toBe(thumb.headers.get("etag"));
    expect((await get("pr_thumb", { "If-None-Match": thumb.headers.get("etag")! })).status).toBe(200);
    expect((await get("pr_wide", { "If-None-Match": wide.headers.get("etag")! })).status).toBe(304);

    expect((await owner.caller.preset.list(scope())).presets.map((p) => [p.name, p.operations])).toEqual([
      ["thumb", "s_60x40,f_png"],
      ["wide", "w_80,f_webp"],
    ]);
  });

  it("answers an unknown or deleted preset with a 400 naming it", async () => {
    await owner.caller.preset.save({ ...scope(), name: "gone", operations: "w_20" });
    expect((await get("pr_gone")).status).toBe(200);
    await owner.caller.preset.delete({ ...scope(), name: "gone" });
    const response = await get("pr_gone");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "INVALID_OPERATION", error: 'Unknown preset "gone"' });
    await expect(owner.caller.preset.delete({ ...scope(), name: "gone" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("presets only: a single preset token passes, anything else is a 400", async () => {
    await owner.caller.preset.save({ ...scope(), name: "only", operations: "w_40,f_png" });
    await owner.caller.preset.setPresetsOnly({ ...scope(), presetsOnly: true });
    try {
      expect((await owner.caller.preset.list(scope())).presetsOnly).toBe(true);
      expect(await sizeOf(await get("pr_only"))).toEqual(["png", 40, 27]);
      for (const operations of ["w_40,f_png", "pr_only,w_41", "_"]) {
        const refused = await get(operations);
        expect(refused.status, operations).toBe(400);
        expect(((await refused.json()) as { error: string }).error).toMatch(/accepts a preset only/);
      }
    } finally {
      await owner.caller.preset.setPresetsOnly({ ...scope(), presetsOnly: false });
    }
    expect((await get("w_41")).status).toBe(200);
  });

  it("the default quality mode gives q_auto to URLs that name no quality, at once, and back", async () => {
    const plain = await get("w_64,f_webp");
    expect(plain.headers.get("x-optstuff-quality")).toBeNull();
    await owner.caller.preset.setDefaultQuality({ ...scope(), defaultQuality: "eco" });
    try {
      expect((await owner.caller.preset.list(scope())).defaultQuality).toBe("eco");
      const searched = await get("w_64,f_webp");
      expect(searched.status).toBe(200);
      const [quality, score] = (searched.headers.get("x-optstuff-quality") ?? "").split("; score=").map(Number);
      expect(quality).toBeGreaterThan(0);
      expect(score).toBeGreaterThanOrEqual(70);
      // A new variant: the ETag says which mode made the bytes.
      expect(searched.headers.get("etag")).not.toBe(plain.headers.get("etag"));
      // A URL's own quality wins; so does a preset's.
      expect((await get("w_64,f_webp,q_40")).headers.get("x-optstuff-quality")).toBeNull();
      await owner.caller.preset.save({ ...scope(), name: "fixed", operations: "w_64,f_webp,q_40" });
      expect((await get("pr_fixed")).headers.get("x-optstuff-quality")).toBeNull();
      // The URL's level wins: searched for 90, which this small image reaches higher up, or not at all
      // (then the answer is the knee, and says so).
      const best = (await get("w_64,f_webp,q_auto:best")).headers.get("x-optstuff-quality") ?? "";
      expect(best).not.toBe(searched.headers.get("x-optstuff-quality"));
      expect(best.endsWith("; unreached") || Number(best.split(";")[0]) > quality!, best).toBe(true);
    } finally {
      await owner.caller.preset.setDefaultQuality({ ...scope(), defaultQuality: null });
    }
    expect((await owner.caller.preset.list(scope())).defaultQuality).toBeNull();
    const back = await get("w_64,f_webp");
    expect(back.headers.get("x-optstuff-quality")).toBeNull();
    expect(back.headers.get("etag")).toBe(plain.headers.get("etag"));
    await expect(
      owner.caller.preset.setDefaultQuality({ ...scope(), defaultQuality: "great" as "good" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("refuses bad presets with a message naming the problem, and is for admins", async () => {
    const bad = (name: string, operations: string) => owner.caller.preset.save({ ...scope(), name, operations });
    await expect(bad("x", "w_0")).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("w_0"),
    });
    await expect(bad("x", "pr_thumb,w_10")).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("another preset"),
    });
    await expect(bad("x", "info")).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("info"),
    });
    await expect(bad("x", "_")).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("at least one"),
    });
    await expect(bad("Bad Name", "w_10")).rejects.toMatchObject({ code: "BAD_REQUEST" });

    const member = await signUp(app.services, "preset-member");
    const invitation = await owner.caller.team.invite({ teamSlug, email: member.email, role: "member" });
    await member.caller.account.acceptInvitation({ token: tokenOf(invitation.link) });
    expect((await member.caller.preset.list(scope())).presets.length).toBeGreaterThan(0);
    await expect(member.caller.preset.save({ ...scope(), name: "mine", operations: "w_10" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(member.caller.preset.setPresetsOnly({ ...scope(), presetsOnly: true })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(member.caller.preset.setDefaultQuality({ ...scope(), defaultQuality: "low" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });
});

describe("what presets only would refuse", () => {
  it("counts the request log's last 7 days of this project by the image API's own rule, sampled rows weighed up", async () => {
    const { id: projectId } = await owner.caller.project.create({
      teamSlug,
      name: "Impact",
      slug: "impact",
      allowedSourceHosts: ["local"],
    });
    const impact = () => owner.caller.preset.presetsOnlyImpact({ teamSlug, projectSlug: "impact" });
    expect(await impact()).toEqual({
      days: 7,
      requests: 0,
      refused: 0,
      examples: [],
      partial: false,
      lookedBackTo: null,
    });

    const now = Date.now();
    const row = (operations: string | null, weight = 1, daysAgo = 0) => ({
      requestId: crypto.randomUUID(),
      projectId,
      status: "success",
      httpStatus: 200,
      operations,
      weight,
      createdAt: new Date(now - daysAgo * 86_400_000),
    });
    await app.services.database.db.insert(requestLog).values([
      row("pr_hero"), // one preset: still served
      row("pr_hero", 2),
      row("w_320,f_webp", 4), // a success sampled 1 in 4
      row("w_320,f_webp"),
      row("pr_hero,w_10"), // a preset and more: refused
      row(null), // no operations read
      row("w_99", 1, 8), // older than the window
      // Refused already, whatever the switch: a bad operation, and a forged signature (anyone holding
      // the public key can log one, with text of their choosing).
      { ...row("nope_1"), status: "bad_request", httpStatus: 400 },
      { ...row("w_1,look_at_me"), status: "sig_invalid", httpStatus: 403 },
    ]);
    // Another project's rows never count.
    const other = await owner.caller.project.create({ teamSlug, name: "Other", slug: "other", allowedSourceHosts: [] });
    await app.services.database.db.insert(requestLog).values({ ...row("w_1"), projectId: other.id });

    expect(await impact()).toEqual({
      days: 7,
      requests: 9,
      refused: 6,
      examples: ["w_320,f_webp", "pr_hero,w_10"],
      partial: false,
      lookedBackTo: null,
    });
  });
});

describe("the preview of operations", () => {
  const preview = (operations: string) => owner.caller.preset.preview({ ...scope(), operations });
  const bytesOf = (dataUrl: string) => Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");

  it("makes of the sample photo exactly what the project's image URLs make of it, with the facts of both", async () => {
    const shown = await preview("s_60x40,f_png");
    expect(shown.before).toEqual({ format: "jpeg", width: 1600, height: 1067, bytes: 154_678 });
    expect(shown.after).toMatchObject({ format: "png", width: 60, height: 40 });
    expect(shown.after.ms).toBeGreaterThan(0);
    expect(shown.image).toMatch(/^data:image\/png;base64,/);
    const image = bytesOf(shown.image!);
    expect(shown.after.bytes).toBe(image.byteLength);
    expect(await sharp(image).metadata()).toMatchObject({ format: "png", width: 60, height: 40 });
    // The image route, given the same operations on the same photo, answers the same bytes.
    const served = Buffer.from(await (await get("s_60x40,f_png")).arrayBuffer());
    expect(image.equals(served)).toBe(true);
    // f_auto as a current browser gets it.
    expect((await preview("w_120,f_auto")).after.format).toBe("avif");
  });

  it("refuses at the field what the image API or a preset would refuse, naming why", async () => {
    for (const [operations, message] of [
      ["w_0", /w_0/],
      ["nope_3", /nope/],
      ["pr_thumb", /cannot use another preset/],
      ["info", /info is asked for in the URL/],
      ["wm", /no watermark/],
    ] as const) {
      const refused = await preview(operations).catch((error: unknown) => error);
      expect(refused, operations).toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(message) });
      expect((refused as { cause?: { field?: string } }).cause?.field, operations).toBe("operations");
    }
  });

  it("is for admins: a member is refused", async () => {
    const member = await signUp(app.services, "presets-member");
    const { link } = await owner.caller.team.invite({ teamSlug, email: member.email, role: "member" });
    await member.caller.account.acceptInvitation({ token: tokenOf(link) });
    await expect(member.caller.preset.preview({ ...scope(), operations: "w_10" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });
});
