import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyPolicy } from "@/lib/schemas/key-policy";
import { requestLog } from "@/server/db/schema";
import { createTestApp, type TestApp } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";
import { buildSignedUrl } from "../../support/signed-url";

/**
 * Key policies through the procedures, observed through the real image route. The config cache lives
 * for a minute here, so a policy change that forgot to invalidate the key would keep being served.
 */
let app: TestApp;
let owner: TestUser;
let teamSlug: string;
const projectSlug = "partner";
const open: KeyPolicy = { operations: null, presets: null, maxExpirySeconds: null, referers: [] };

beforeAll(async () => {
  app = await createTestApp({ env: { OPTSTUFF_CONFIG_CACHE_TTL_MS: "60000", OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "0" } });
  owner = await signUp(app.services, "policies");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Policies",
      slug: `pol-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Partner", slug: projectSlug, allowedSourceHosts: ["local"] });
  await owner.caller.preset.save({ teamSlug, projectSlug, name: "hero", operations: "w_60,f_png" });
  await owner.caller.preset.save({ teamSlug, projectSlug, name: "thumb", operations: "s_20x20,f_png" });
}, 30_000);
afterAll(() => app.close());

type Key = { id: string; publicKey: string; secretKey: string };
const newKey = (name: string) => owner.caller.apiKey.create({ teamSlug, projectSlug, name, expiresAt: null });
const setPolicy = (key: Key, policy: Partial<KeyPolicy> | null) =>
  owner.caller.apiKey.update({ teamSlug, projectSlug, keyId: key.id, policy: policy && { ...open, ...policy } });
const fetchImage = (
  key: Key,
  operations: string,
  options: { exp?: number; referer?: string; ifNoneMatch?: string } = {},
) => {
  const url = buildSignedUrl({
    baseUrl: "http://x",
    projectSlug,
    ...key,
    operations,
    source: "local/photo.jpg",
    ...(options.exp !== undefined && { exp: options.exp }),
  });
  const headers = {
    ...(options.referer && { referer: options.referer }),
    ...(options.ifNoneMatch && { "if-none-match": options.ifNoneMatch }),
  };
  return app.fetch(url.slice("http://x".length), { headers });
};
const refusal = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { code: string; error: string }),
});

describe("key policies", () => {
  it("narrow a cached key at once, say what they refuse, and let the rest through", async () => {
    const key = await newKey("partner");
    const before = await fetchImage(key, "w_30,blur_2,f_png");
    expect(before.status).toBe(200);
    const etag = before.headers.get("etag")!;
    expect((await fetchImage(key, "w_30,blur_2,f_png", { ifNoneMatch: etag })).status).toBe(304);
    await setPolicy(key, { operations: ["w", "f"] });
    // A browser's ETag does not turn a refused URL into a 304.
    expect((await fetchImage(key, "w_30,blur_2,f_png", { ifNoneMatch: etag })).status).toBe(403);
    expect(await refusal(await fetchImage(key, "w_30,blur_2,f_png"))).toMatchObject({
      status: 403,
      code: "KEY_POLICY_REFUSED",
      error: "This key may not sign blur: its policy allows only w, f",
    });
    expect((await fetchImage(key, "w_31,f_png")).status).toBe(200);
    // Cleared: the key signs all the project allows again.
    expect((await setPolicy(key, null)).policy).toBeNull();
    expect((await fetchImage(key, "w_30,blur_2,f_png")).status).toBe(200);
  });

  it("make a key presets-only, held to the presets it names", async () => {
    const key = await newKey("presets");
    await setPolicy(key, { operations: ["pr"], presets: ["thumb"] });
    const thumb = await fetchImage(key, "pr_thumb");
    expect(thumb.status).toBe(200);
    expect(await refusal(await fetchImage(key, "pr_hero"))).toMatchObject({
      code: "KEY_POLICY_REFUSED",
      error: "This key may not sign the preset hero",
    });
    expect((await refusal(await fetchImage(key, "pr_thumb,w_10"))).error).toMatch(/may not sign w:/);
    // The original, whole, is not a preset.
    expect((await refusal(await fetchImage(key, "_"))).error).toBe(
      "This key's URLs must be one preset (pr_{name}) and nothing else",
    );
  });

  it("require an exp no further ahead than the policy's longest", async () => {
    const key = await newKey("short-lived");
    await setPolicy(key, { maxExpirySeconds: 3600 });
    const now = Math.floor(Date.now() / 1000);
    expect((await refusal(await fetchImage(key, "w_32,f_png"))).error).toBe(
      "This key's URLs must carry exp, at most 3600 s ahead",
    );
    expect((await refusal(await fetchImage(key, "w_32,f_png", { exp: now + 7200 }))).code).toBe("KEY_POLICY_REFUSED");
    expect((await fetchImage(key, "w_32,f_png", { exp: now + 3000 })).status).toBe(200);
  });

  it("serve only the pages on the key's referer list, on top of the project's", async () => {
    const key = await newKey("embedded");
    const saved = await setPolicy(key, {
      referers: ["https://Partner.Example:8443", "*.cdn.example", "partner.example"],
    });
    expect(saved.policy?.referers).toEqual(["partner.example", "*.cdn.example"]);
    expect((await refusal(await fetchImage(key, "w_33,f_png"))).code).toBe("FORBIDDEN");
    const served = await fetchImage(key, "w_33,f_png", { referer: "https://partner.example/p" });
    expect(served.status).toBe(200);
    // Caches must not hand one page's answer to another: the answer varies by Referer, as the project's list makes it.
    expect(served.headers.get("vary")).toMatch(/\bReferer\b/);
    expect((await fetchImage(key, "w_33,f_png", { referer: "https://img.cdn.example/" })).status).toBe(200);
  });

  it("refuse what cannot be a policy, naming it, and keep the policy that was", async () => {
    const key = await newKey("strict");
    await setPolicy(key, { operations: ["w"] });
    const bad: [Partial<KeyPolicy>, RegExp][] = [
      [{ operations: ["w", "zoom"] }, /No operation is named zoom/],
      [{ presets: ["hero", "banner"] }, /The project has no preset banner/],
      [{ referers: ["127.0.0.1"] }, /not a valid referer host/],
      [{ referers: ["localhost"] }, /not a valid referer host/],
      [{ maxExpirySeconds: 10 }, /At least a minute/],
      [{ operations: ["W_1;drop"] }, /token's name/],
    ];
    for (const [policy, message] of bad) {
      await expect(setPolicy(key, policy)).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(message),
      });
    }
    const listed = (await owner.caller.apiKey.list({ teamSlug, projectSlug })).find((k) => k.id === key.id)!;
    expect(listed.policy).toEqual({ ...open, operations: ["w"] });
  });

  it("store a policy that restricts nothing as none, and dedupe its lists", async () => {
    const key = await newKey("loose");
    expect((await setPolicy(key, {})).policy).toBeNull();
    expect((await setPolicy(key, { operations: ["w", "f", "w"], presets: ["hero", "hero"] })).policy).toEqual({
      ...open,
      operations: ["w", "f"],
      presets: ["hero"],
    });
  });

  it("pass to the new pair of a rotation, and are audited with what changed", async () => {
    const old = await newKey("rotated");
    await setPolicy(old, { operations: ["w", "f"] });
    const rotated = await owner.caller.apiKey.rotate({ teamSlug, projectSlug, keyId: old.id, graceSeconds: 60 });
    expect((await refusal(await fetchImage(rotated, "w_34,blur_1,f_png"))).code).toBe("KEY_POLICY_REFUSED");
    expect((await fetchImage(rotated, "w_34,f_png")).status).toBe(200);
    const listed = (await owner.caller.apiKey.list({ teamSlug, projectSlug })).find((k) => k.id === rotated.id)!;
    expect(listed.policy).toEqual({ ...open, operations: ["w", "f"] });

    const page = await owner.caller.audit.list({ teamSlug });
    const entry = page.entries.find((e) => e.action === "api_key.updated" && e.changes && "policy" in e.changes);
    expect(entry?.changes?.policy).toEqual({ from: null, to: { ...open, operations: ["w", "f"] } });
  });

  it("preview what a policy would have refused of the key's own recent images, by the route's rule", async () => {
    const { id: projectId } = (await owner.caller.project.list({ teamSlug })).find((p) => p.slug === projectSlug)!;
    const key = await newKey("judged");
    const other = await newKey("other");
    const impact = (policy: Partial<KeyPolicy>, keyId = key.id) =>
      owner.caller.apiKey.policyImpact({ teamSlug, projectSlug, keyId, policy: { ...open, ...policy } });
    const row = (apiKeyId: string, operations: string, weight = 1) => ({
      requestId: crypto.randomUUID(),
      projectId,
      apiKeyId,
      status: "success",
      httpStatus: 200,
      operations,
      weight,
    });
    await app.services.database.db.insert(requestLog).values([
      row(key.id, "pr_hero", 2),
      row(key.id, "w_320,f_webp", 4),
      row(key.id, "pr_thumb"),
      row(key.id, "look_at_me_1"), // no longer parses: not this policy's refusal
      row(other.id, "w_1,blur_3", 50), // another key's images never count
      { ...row(key.id, "w_2,blur_9"), status: "sig_invalid", httpStatus: 403 }, // refused already
    ]);
    expect(await impact({ operations: ["pr"], presets: ["hero"] })).toMatchObject({
      requests: 8,
      refused: 5,
      examples: ["w_320,f_webp", "pr_thumb"],
    });
    // Lifetime and referers are not in the log: judged on operations alone, nothing is refused here.
    expect(await impact({ maxExpirySeconds: 3600, referers: ["partner.example"] })).toMatchObject({
      requests: 8,
      refused: 0,
    });
    // A key of another project is not found through this one.
    await owner.caller.project.create({
      teamSlug,
      name: "Elsewhere",
      slug: "elsewhere",
      allowedSourceHosts: ["local"],
    });
    const stranger = await owner.caller.apiKey.create({
      teamSlug,
      projectSlug: "elsewhere",
      name: "s",
      expiresAt: null,
    });
    await expect(impact({ operations: ["w"] }, stranger.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
