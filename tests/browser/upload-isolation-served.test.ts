import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapProject, startServedApp, type ServedApp } from "../support/browser";
import { scanBombJpeg } from "../support/hostile";
import { servedDashboard } from "../support/served-dashboard";
import { signedFor } from "../support/signed-url";

/**
 * Uploads are decoded where sources are, not on the server's threads. Eight uploads of a JPEG made of
 * 28,500 progressive scans (13 s of decoding each) used to hold every libuv pool thread: another
 * account's sign-in (scrypt) and another tenant's new variant waited about a minute. Against the built
 * app as `npm start` runs it: the other account signs in and is served while the uploads are still out,
 * and every upload is refused.
 */
let app: ServedApp;
let demo: Record<string, string> = {};

beforeAll(async () => {
  app = await startServedApp({ OPTSTUFF_REGISTRATION: "open" }, (dataDir) => {
    demo = bootstrapProject(dataDir);
  });
  // The first account adopts the demo team the command line made: the other tenant, another account.
  await signUp("demo-owner");
}, 120_000);
afterAll(() => app?.stop());

const signUp = (label: string) => servedDashboard(app.baseUrl).signUp(label);
const trpc = (cookie: string, procedure: string, input: unknown) =>
  servedDashboard(app.baseUrl).mutate(cookie, procedure, input);

describe("uploads that take long to decode", () => {
  it("are refused without holding the server: another account signs in and is served meanwhile", async () => {
    const attacker = await signUp("uploader");
    const team = `uploads-${Date.now().toString(36)}`;
    expect((await trpc(attacker, "account.completeOnboarding", { name: "Uploads", slug: team })).status).toBe(200);
    expect((await trpc(attacker, "project.create", { teamSlug: team, name: "Site", slug: "site" })).status).toBe(200);
    const base64 = scanBombJpeg().toString("base64");

    const order: string[] = [];
    const uploads = Array.from({ length: 8 }, (_, i) =>
      trpc(attacker, "projectImage.upload", { teamSlug: team, projectSlug: "site", kind: "watermark", base64 }).then(
        async (response) => {
          order.push(`upload ${i}`);
          return {
            status: response.status,
            body: (await response.json()) as { error?: { json?: { message?: string } } },
          };
        },
      ),
    );
    // The uploads are in; another account signs up (scrypt) and another tenant's new variant is made.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await signUp("bystander");
    order.push("sign-up");
    const image = await fetch(signedFor(app.baseUrl, demo, "w_333,f_webp", "local/photo.jpg"));
    expect(image.status).toBe(200);
    order.push("image");

    const answers = await Promise.all(uploads);
    expect(order.indexOf("sign-up")).toBeLessThan(order.findIndex((step) => step.startsWith("upload")));
    expect(order.indexOf("image")).toBeLessThan(order.findIndex((step) => step.startsWith("upload")));
    for (const answer of answers) {
      // Refused for its decoding time in a transform process, or, past the team's share of the queue, at once.
      expect([400, 503]).toContain(answer.status);
      if (answer.status === 400) expect(JSON.stringify(answer.body)).toContain("takes too long to decode");
    }
    expect(answers.some((answer) => answer.status === 400)).toBe(true);
    const images = (await (
      await fetch(
        `${app.baseUrl}/api/trpc/projectImage.get?input=${encodeURIComponent(JSON.stringify({ json: { teamSlug: team, projectSlug: "site" } }))}`,
        { headers: { cookie: attacker } },
      )
    ).json()) as { result: { data: { json: { watermark: unknown } } } };
    expect(images.result.data.json.watermark).toBeNull();
  }, 120_000);
});
