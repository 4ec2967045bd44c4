import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertEvents, projects, teamWebhooks, webhookDeliveries } from "@/server/db/schema";
import { enqueueCurrentAlerts } from "@/server/webhooks/enqueue";
import { createWebhookSender, MAX_ATTEMPTS, RETRY_DELAYS_S } from "@/server/webhooks/sender";
import { WEBHOOKS_PER_TEAM } from "@/server/webhooks/manage";
import { createTestApp, type TestApp } from "../../support/app";
import { buildTenantWorld, type TenantWorld } from "../../support/tenant-world";
import { startWebhookReceiver } from "../../support/webhook-receiver";

/**
 * A team's webhooks against a receiver on loopback: audit actions chosen become deliveries in the
 * entry's own transaction, signed as Standard Webhooks (checked with the `standardwebhooks` library),
 * retried on the schedule, redelivered and tested from the console, in Slack's format with names
 * escaped, and never to an address the sources' policy refuses.
 */
let app: TestApp;
let world: TenantWorld;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  app = await createTestApp();
  world = await buildTenantWorld(app.services, "hooks");
  await dropWorldWebhook(world); // a receiver at a name that does not resolve: every run would try it
  receiver = await startWebhookReceiver();
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await app?.close();
});

const db = () => app.services.database.db;
const dropWorldWebhook = (w: TenantWorld) =>
  w.owner.caller.webhooks.delete({ teamSlug: w.teamSlug, webhookId: w.webhookId });
const owner = () => world.owner.caller;
const teamSlug = () => world.teamSlug;
const deliveriesOf = (webhookId: string) =>
  db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId)).orderBy(webhookDeliveries.id);
/** The sender as the alert check runs it, at a moment of the test's choosing. */
const senderAt = (now: Date) =>
  createWebhookSender({
    db: db(),
    secretBox: app.services.secretBox,
    post: { allowLoopback: true, timeoutMs: 5_000 },
    now: () => now,
    logger: app.services.logger,
  });

async function addWebhook(events: string[], format: "standard" | "slack" = "standard", path?: string) {
  return owner().webhooks.create({ teamSlug: teamSlug(), url: receiver.url(path), format, events });
}

describe("webhooks", () => {
  it("are shown without their address's secret part, with a signing secret given once, both sealed at rest", async () => {
    const { webhook, secret } = await addWebhook(
      ["audit.api_key.created"],
      "standard",
      "/services/T000/B000/XXXXSECRET",
    );
    expect(secret).toMatch(/^whsec_/);
    expect(webhook.urlShown).toBe(`http://127.0.0.1:${receiver.port}/…`);
    const listed = await owner().webhooks.list({ teamSlug: teamSlug() });
    expect(JSON.stringify(listed)).not.toContain("XXXXSECRET");
    expect(JSON.stringify(listed)).not.toContain(secret);
    const [row] = await db().select().from(teamWebhooks).where(eq(teamWebhooks.id, webhook.id));
    expect(row!.sealedUrl).not.toContain("XXXXSECRET");
    expect(row!.sealedSecret).not.toContain(secret.slice(6));
    await owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: webhook.id });
  });

  it("sends a chosen audit action once, signed (Standard Webhooks), and nothing for actions not chosen", async () => {
    const { webhook, secret } = await addWebhook(["audit.api_key.created"]);
    const before = receiver.received.length;
    await owner().apiKey.create({
      teamSlug: teamSlug(),
      projectSlug: world.projectSlug,
      name: "partner",
      expiresAt: null,
    });
    await owner().project.update({ teamSlug: teamSlug(), projectSlug: world.projectSlug, name: "Site renamed" });
    const queued = await deliveriesOf(webhook.id);
    expect(queued.map((d) => d.eventType)).toEqual(["audit.api_key.created"]);

    const report = await senderAt(new Date()).deliverDue();
    expect(report).toMatchObject({ delivered: 1, failed: 0 });
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(1);
    const payload = new Webhook(secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(payload.type).toBe("audit.api_key.created");
    expect(payload.data).toMatchObject({
      action: "api_key.created",
      actor: { type: "user", label: world.owner.email },
      target: { type: "api_key", label: expect.stringContaining("partner") },
      team: { slug: teamSlug() },
    });
    // Where the change came from stays in the audit log.
    expect(got[0]!.body).not.toContain("203.0.113.9");
    // Another secret, or a body changed on the way, does not verify.
    expect(() =>
      new Webhook("whsec_" + Buffer.alloc(24).toString("base64")).verify(
        got[0]!.body,
        got[0]!.headers as Record<string, string>,
      ),
    ).toThrow();
    expect(() =>
      new Webhook(secret).verify(got[0]!.body.replace("partner", "partnex"), got[0]!.headers as Record<string, string>),
    ).toThrow();
    const [sent] = await deliveriesOf(webhook.id);
    expect(sent).toMatchObject({ status: "delivered", attempts: 1, responseStatus: 200, error: null });
    // Sent once: a second run finds nothing due.
    expect(await senderAt(new Date()).deliverDue()).toMatchObject({ delivered: 0, failed: 0 });
    await owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: webhook.id });
  });

  it("retries a refusal on its schedule and fails it after six attempts; redeliver sends it again", async () => {
    expect(MAX_ATTEMPTS).toBe(6); // the name says six
    const { webhook } = await addWebhook(["audit.preset.saved", "audit.api_key.created"]);
    await owner().apiKey.create({
      teamSlug: teamSlug(),
      projectSlug: world.projectSlug,
      name: "retried",
      expiresAt: null,
    });
    receiver.answer(503);
    let at = new Date();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect((await senderAt(at).deliverDue()).failed, `attempt ${attempt}`).toBe(1);
      const [row] = await deliveriesOf(webhook.id);
      expect(row).toMatchObject({ attempts: attempt, responseStatus: 503, error: "the receiver answered 503" });
      const delay = RETRY_DELAYS_S[attempt - 1];
      if (delay === undefined) expect(row).toMatchObject({ status: "failed", nextAttemptAt: null });
      else {
        expect(row!.nextAttemptAt!.getTime() - at.getTime()).toBe(delay * 1000);
        // Not before its time.
        expect((await senderAt(new Date(at.getTime() + delay * 1000 - 1000)).deliverDue()).failed).toBe(0);
        at = new Date(at.getTime() + delay * 1000);
      }
    }
    receiver.answer(200);
    const [failed] = await deliveriesOf(webhook.id);
    const outcome = await owner().webhooks.redeliver({ teamSlug: teamSlug(), deliveryId: failed!.id });
    expect(outcome).toEqual({ delivered: true, status: 200, error: null });
    const log = await owner().webhooks.deliveries({ teamSlug: teamSlug(), webhookId: webhook.id });
    expect(log[0]).toMatchObject({ status: "delivered", attempts: 1, responseStatus: 200 });
    await owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: webhook.id });
  });

  it("sends a test from the console and keeps it in the log; Slack's format escapes the names", async () => {
    await owner().team.update({ teamSlug: teamSlug(), name: "<!channel> & co" });
    const { webhook } = await addWebhook(["alert.errorRate"], "slack");
    const before = receiver.received.length;
    const outcome = await owner().webhooks.sendTest({ teamSlug: teamSlug(), webhookId: webhook.id });
    expect(outcome).toEqual({ delivered: true, status: 200, error: null });
    const body = JSON.parse(receiver.received[before]!.body) as { text: string };
    expect(body.text).toContain("&lt;!channel&gt; &amp; co");
    expect(body.text).not.toContain("<!channel>");
    const log = await owner().webhooks.deliveries({ teamSlug: teamSlug(), webhookId: webhook.id });
    expect(log[0]).toMatchObject({ eventType: "webhook.test", status: "delivered" });
    await owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: webhook.id });
  });

  it("redelivers one waiting for its next retry at once, and refuses one a sender holds right now", async () => {
    const { webhook } = await addWebhook(["alert.errorRate"]);
    receiver.answer(500);
    const refused = await owner().webhooks.sendTest({ teamSlug: teamSlug(), webhookId: webhook.id });
    expect(refused).toMatchObject({ delivered: false, status: 500 });
    receiver.answer(200);
    const [waiting] = await deliveriesOf(webhook.id);
    expect(waiting).toMatchObject({ status: "pending", attempts: 1 });
    expect(await owner().webhooks.redeliver({ teamSlug: teamSlug(), deliveryId: waiting!.id })).toMatchObject({
      delivered: true,
    });
    await db()
      .update(webhookDeliveries)
      .set({ status: "sending", nextAttemptAt: new Date(Date.now() + 60_000) })
      .where(eq(webhookDeliveries.id, waiting!.id));
    await expect(owner().webhooks.redeliver({ teamSlug: teamSlug(), deliveryId: waiting!.id })).rejects.toThrow(
      "being sent right now",
    );
    await owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: webhook.id });
  });

  it("sends a current alert once per window to the webhooks that chose its kind, with a link to the dashboard", async () => {
    const { webhook } = await addWebhook(["alert.errorRate"]);
    const { webhook: other } = await addWebhook(["alert.keyExpiry"]);
    const [project] = await db().select().from(projects).where(eq(projects.slug, world.projectSlug));
    const now = new Date();
    await db()
      .insert(alertEvents)
      .values({
        teamId: project!.teamId,
        projectId: project!.id,
        kind: "errorRate",
        subjectId: project!.id,
        window: now.toISOString().slice(0, 13),
        message: "Site: 40 % of requests failed in the last 15 minutes",
        firstSeenAt: now,
        lastSeenAt: now,
      });
    const options = { since: new Date(now.getTime() - 60_000), now, dashboardUrl: "https://dash.example" };
    expect(await enqueueCurrentAlerts(db(), options)).toBe(1);
    expect(await enqueueCurrentAlerts(db(), options)).toBe(0);
    const before = receiver.received.length;
    await senderAt(now).deliverDue();
    const payload = JSON.parse(receiver.received[before]!.body) as { type: string; data: Record<string, unknown> };
    expect(payload).toMatchObject({
      type: "alert.errorRate",
      data: {
        message: expect.stringContaining("40 %"),
        link: `https://dash.example/t/${teamSlug()}/p/${world.projectSlug}`,
      },
    });
    expect(await deliveriesOf(other.id)).toEqual([]);
    for (const id of [webhook.id, other.id]) await owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: id });
  });

  it("tries a team whose receiver is down once per run: the other teams' deliveries are sent meanwhile", async () => {
    const down = await startWebhookReceiver();
    const deadUrl = down.url();
    await down.close(); // nothing listens there now: the connection is refused
    const other = await buildTenantWorld(app.services, "hooks-other");
    await dropWorldWebhook(other);
    const dead = await owner().webhooks.create({
      teamSlug: teamSlug(),
      url: deadUrl,
      format: "standard",
      events: ["audit.api_key.created"],
    });
    const deadToo = await owner().webhooks.create({
      teamSlug: teamSlug(),
      url: deadUrl,
      format: "slack",
      events: ["audit.api_key.created"],
    });
    const live = await other.owner.caller.webhooks.create({
      teamSlug: other.teamSlug,
      url: receiver.url(),
      format: "standard",
      events: ["audit.api_key.created"],
    });
    for (const name of ["one", "two", "three"])
      await owner().apiKey.create({ teamSlug: teamSlug(), projectSlug: world.projectSlug, name, expiresAt: null });
    await other.owner.caller.apiKey.create({
      teamSlug: other.teamSlug,
      projectSlug: other.projectSlug,
      name: "x",
      expiresAt: null,
    });
    const report = await senderAt(new Date()).deliverDue();
    expect(report).toMatchObject({ delivered: 1, failed: 1, teamsFailing: 1 });
    // One attempt for the whole team: its second webhook's deliveries wait too.
    expect((await deliveriesOf(deadToo.webhook.id)).map((d) => d.attempts)).toEqual([0, 0, 0]);
    expect((await deliveriesOf(dead.webhook.id)).map((d) => d.attempts)).toEqual([1, 0, 0]);
    expect((await deliveriesOf(dead.webhook.id))[0]!.error).toMatch(/connection failed|could not connect/);
    expect((await deliveriesOf(live.webhook.id)).map((d) => d.status)).toContain("delivered");
    for (const hook of [dead, deadToo])
      await owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: hook.webhook.id });
  });

  it("keeps at most five per team, refuses malformed input at its field, and is for admins", async () => {
    expect(WEBHOOKS_PER_TEAM).toBe(5); // the name says five
    const bad = [
      { url: "ftp://example.com/x", message: "https://" },
      { url: "https://user:pw@example.com/x", message: "user name and password" },
      { url: "not a url", message: "full URL" },
    ];
    for (const input of bad)
      await expect(
        owner().webhooks.create({
          teamSlug: teamSlug(),
          url: input.url,
          format: "standard",
          events: ["alert.errorRate"],
        }),
      ).rejects.toThrow(input.message);
    await expect(
      owner().webhooks.create({ teamSlug: teamSlug(), url: receiver.url(), format: "standard", events: [] }),
    ).rejects.toThrow("at least one");
    await expect(
      owner().webhooks.create({
        teamSlug: teamSlug(),
        url: receiver.url(),
        format: "standard",
        events: ["audit.account.signed_in"],
      }),
    ).rejects.toThrow("Unknown event");
    await expect(world.member.caller.webhooks.list({ teamSlug: teamSlug() })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    const held = (await owner().webhooks.list({ teamSlug: teamSlug() })).length;
    for (let i = held; i < WEBHOOKS_PER_TEAM; i++) await addWebhook(["alert.errorRate"]);
    await expect(addWebhook(["alert.errorRate"])).rejects.toThrow(`at most ${WEBHOOKS_PER_TEAM} webhooks`);
  });
});

describe("webhooks where the sources' policy refuses loopback", () => {
  let strict: TestApp;
  let team: TenantWorld;
  beforeAll(async () => {
    strict = await createTestApp({ env: { OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "0" } });
    team = await buildTenantWorld(strict.services, "strict");
  }, 60_000);
  afterAll(() => strict?.close());

  it("refuses a loopback or private address and other ports at its field, and sends nothing to a name that resolves to one", async () => {
    for (const url of [
      receiver.url(),
      "http://10.0.0.8/hook",
      "http://[::1]:8080/hook",
      "http://169.254.169.254/latest",
    ])
      await expect(
        team.owner.caller.webhooks.create({
          teamSlug: team.teamSlug,
          url,
          format: "standard",
          events: ["alert.errorRate"],
        }),
      ).rejects.toThrow("private, loopback or reserved");
    await expect(
      team.owner.caller.webhooks.create({
        teamSlug: team.teamSlug,
        url: "https://receiver.example:22/hook",
        format: "standard",
        events: ["alert.errorRate"],
      }),
    ).rejects.toThrow("port 80, 443, 8080 or 8443");
    const { webhook } = await team.owner.caller.webhooks.create({
      teamSlug: team.teamSlug,
      url: "http://localhost:8080/hook",
      format: "standard",
      events: ["alert.errorRate"],
    });
    const before = receiver.received.length;
    const outcome = await team.owner.caller.webhooks.sendTest({ teamSlug: team.teamSlug, webhookId: webhook.id });
    expect(outcome).toMatchObject({ delivered: false, status: null });
    expect(outcome.error).toContain("address not allowed");
    expect(outcome.error).not.toContain("127.0.0.1");
    expect(receiver.received.length).toBe(before);
  });
});
