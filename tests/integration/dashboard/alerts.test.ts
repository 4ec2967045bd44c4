import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertEvents, auditLog, requestMinuteStats, sourceBuckets } from "@/server/db/schema";
import { createCronRouteHandler } from "@/server/http/cron-route";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { signUp, type TestUser } from "../../support/dashboard";
import { startS3, type LocalS3 } from "../../support/s3";
import { buildSignedUrl } from "../../support/signed-url";
import { startSmtpSink, type SmtpSink } from "../../support/smtp";
import { tokenOf } from "../../support/tenant-world";

/**
 * Alerts end to end: real image requests through the route, the real limiter's day window, a real
 * S3-compatible server refusing a key id, and a real SMTP server on loopback counting the mails.
 */
let app: TestApp;
let smtp: SmtpSink;
let s3: LocalS3;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let teamSlug: string;
const projectSlug = "shop";
const scope = () => ({ teamSlug, projectSlug });
const DAY_MS = 86_400_000;

beforeAll(async () => {
  [smtp, s3] = await Promise.all([startSmtpSink(), startS3()]);
  app = await createTestApp({
    env: { SMTP_URL: smtp.url, SMTP_FROM: "OptStuff <alerts@optstuff.test>" },
  });
  owner = await signUp(app.services, "alert-owner");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Alerting",
      slug: `alerting-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  const join = async (label: string, role: "admin" | "member") => {
    const user = await signUp(app.services, label);
    const invitation = await owner.caller.team.invite({ teamSlug, email: user.email, role });
    await user.caller.account.acceptInvitation({ token: tokenOf(invitation.link) });
    return user;
  };
  admin = await join("alert-admin", "admin");
  member = await join("alert-member", "member");
  await owner.caller.project.create({ teamSlug, name: "Shop", slug: projectSlug, allowedSourceHosts: ["local"] });
}, 60_000);
afterAll(async () => {
  await app.close();
  await Promise.all([smtp.close(), s3.stop()]);
});

const check = () => app.services.jobs.cron.checkAlerts();
/** The requests so far, flushed into the usage totals (the current minute too). */
const meter = async () => {
  await app.settled();
  await app.services.jobs.cron.flushUsage({ safetyLagMs: -60_000 });
};
const mailsAbout = (text: string) => smtp.received.filter((mail) => mail.includes(text));
const image = (key: { publicKey: string; secretKey: string }, operations: string, source = "local/photo.jpg") =>
  app.fetch(buildSignedUrl({ baseUrl: "http://x", projectSlug, ...key, operations, source }).slice("http://x".length));

/** A received mail's headers, and its body decoded from its transfer encoding. */
function partsOf(mail: string): { head: string; text: string } {
  const end = mail.indexOf("\r\n\r\n");
  const head = mail.slice(0, end);
  const raw = mail.slice(end + 4);
  const encoding = /^Content-Transfer-Encoding: *(\S+)/im.exec(head)?.[1]?.toLowerCase();
  if (encoding === "base64") return { head, text: Buffer.from(raw, "base64").toString("utf8") };
  if (encoding !== "quoted-printable") return { head, text: raw };
  const bytes = raw
    .replace(/=\r\n/g, "")
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return { head, text: Buffer.from(bytes, "latin1").toString("utf8") };
}

describe("alerts", () => {
  it("mails the admins once when a key passes its share of the day limit, and shows it to admins only", async () => {
    await clearOfWindowEdge(86_400_000, 60_000); // the key's day window ends at UTC midnight
    const key = await owner.caller.apiKey.create({
      ...scope(),
      name: "storefront",
      expiresAt: null,
      rateLimitPerDay: 5,
    });
    for (const width of [30, 31, 32]) expect((await image(key, `w_${width}`)).status).toBe(200);
    await meter(); // only keys that delivered enough since yesterday are asked about
    expect((await check()).ok).toBe(true);
    expect(mailsAbout('Key "storefront"')).toHaveLength(0); // 3 of 5: under 80 %
    expect((await image(key, "w_33")).status).toBe(200);
    await meter();
    const report = await check();
    expect(report).toMatchObject({ ok: true, mailed: 1, mailFailures: 0 });
    const [mail, ...more] = mailsAbout('Key "storefront"');
    expect(more).toHaveLength(0);
    expect(mail).toContain("has made 4 of its 5 transforms per day (80 %");
    // To the owner and the admin, not the member; with a link to the project's keys.
    expect(mail).toMatch(new RegExp(`To: .*${owner.email}`));
    expect(mail).toContain(admin.email);
    expect(mail).not.toContain(member.email);
    expect(mail).toContain(`${app.services.dashboard.publicBaseUrl}/t/${teamSlug}/p/${projectSlug}/keys`);

    // Checked again, and past the limit: the same alert and day, no second mail; the banner says the latest.
    expect((await image(key, "w_34")).status).toBe(200);
    await meter();
    await check();
    await check();
    expect(mailsAbout('Key "storefront"')).toHaveLength(1);
    const current = await admin.caller.alerts.current({ teamSlug });
    expect(current.filter((a) => a.kind === "keyDayLimit")).toEqual([
      expect.objectContaining({ projectSlug, mailed: true, message: expect.stringContaining("5 of its 5") }),
    ]);
    await expect(member.caller.alerts.current({ teamSlug })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const stranger = await signUp(app.services, "alert-stranger");
    await expect(stranger.caller.alerts.current({ teamSlug })).rejects.toMatchObject({ code: "NOT_FOUND" });

    // Its limit raised: the alert ends, leaves the banner, and is not mailed again when checked.
    await owner.caller.apiKey.update({ ...scope(), keyId: key.id, rateLimitPerDay: 100 });
    await check();
    expect((await admin.caller.alerts.current({ teamSlug })).some((a) => a.kind === "keyDayLimit")).toBe(false);
    await owner.caller.apiKey.revoke({ ...scope(), keyId: key.id });
  }, 90_000);

  it("mails once when a key expires within 7 days, again for a new expiry", async () => {
    const expiresAt = new Date(Date.now() + 3 * DAY_MS);
    const key = await owner.caller.apiKey.create({ ...scope(), name: "campaign", expiresAt });
    const later = await owner.caller.apiKey.create({
      ...scope(),
      name: "next-year",
      expiresAt: new Date(Date.now() + 30 * DAY_MS),
    });
    await check();
    await check();
    expect(mailsAbout('Key "campaign"')).toHaveLength(1);
    expect(mailsAbout('Key "next-year"')).toHaveLength(0);
    expect(mailsAbout('Key "campaign"')[0]).toContain(
      `expires on ${expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`,
    );
    // Extended by a day, still within the week: a new expiry, a new mail.
    await owner.caller.apiKey.update({ ...scope(), keyId: key.id, expiresAt: new Date(expiresAt.getTime() + DAY_MS) });
    await check();
    expect(mailsAbout('Key "campaign"')).toHaveLength(2);
    await owner.caller.apiKey.revoke({ ...scope(), keyId: key.id });
    await owner.caller.apiKey.revoke({ ...scope(), keyId: later.id });
    await check();
    expect((await admin.caller.alerts.current({ teamSlug })).some((a) => a.kind === "keyExpiry")).toBe(false);
  });

  it("mails once when a project's requests fail over 15 minutes, counted from the route's own outcomes", async () => {
    await clearOfWindowEdge(3_600_000, 30_000); // the alert is kept once per hour
    // A project of its own: the error rate is over every request of the project in the 15 minutes.
    const failing = await owner.caller.project.create({
      teamSlug,
      name: "Failing",
      slug: "failing",
      allowedSourceHosts: ["local"],
    });
    const key = await owner.caller.apiKey.create({ teamSlug, projectSlug: "failing", name: "errors", expiresAt: null });
    const image = (operations: string, source = "local/photo.jpg") =>
      app.fetch(
        buildSignedUrl({ baseUrl: "http://x", projectSlug: "failing", ...key, operations, source }).slice(
          "http://x".length,
        ),
      );
    for (let i = 0; i < 19; i++) expect((await image("w_40", `local/missing-${i}.jpg`)).status).toBe(404);
    await app.settled();
    await check();
    expect(mailsAbout("requests failed")).toHaveLength(0); // 19 requests: too few to say
    expect((await image("w_40")).status).toBe(200);
    await app.settled();
    const minutes = await app.services.database.db
      .select()
      .from(requestMinuteStats)
      .where(eq(requestMinuteStats.projectId, failing.id));
    expect([minutes.reduce((n, m) => n + m.requests, 0), minutes.reduce((n, m) => n + m.failed, 0)]).toEqual([20, 19]);
    await check();
    await check();
    const mails = mailsAbout("requests failed");
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain("Failing: 19 of 20 requests failed in the last 15 minutes (95 %");
    expect(mails[0]).toContain(`/t/${teamSlug}/p/failing/usage`);
    await owner.caller.project.delete({ teamSlug, projectSlug: "failing", confirmSlug: "failing" });
  }, 60_000);

  it("tries a bucket's credentials, mails once while they are refused, and clears when they are fixed", async () => {
    const bucket = await s3.bucket();
    const settings = {
      ...scope(),
      alias: "media",
      endpoint: s3.endpoint,
      region: "us-east-1",
      bucket,
      prefix: "",
      forcePathStyle: true,
      accessKeyId: "NOT-A-KEY-ID",
      secretAccessKey: s3.secretAccessKey,
    };
    await owner.caller.sourceBucket.save(settings);
    expect((await check()).probed).toBeGreaterThanOrEqual(1);
    await check(); // not tried again within 15 minutes, still alerting
    const mails = mailsAbout('Bucket "media"');
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain("the bucket does not know the access key id");
    expect(mails[0]).not.toContain(s3.secretAccessKey);
    expect((await admin.caller.alerts.current({ teamSlug })).map((a) => a.kind)).toContain("bucketCredentials");

    // Saved with the right key id: tried afresh at the next check, which finds them working.
    await owner.caller.sourceBucket.save({ ...settings, accessKeyId: s3.accessKeyId });
    expect((await check()).probed).toBeGreaterThanOrEqual(1);
    const [row] = await app.services.database.db.select().from(sourceBuckets).where(eq(sourceBuckets.bucket, bucket));
    expect(row).toMatchObject({ credentialsFailure: null });
    expect(row!.credentialsCheckedAt).not.toBeNull();
    expect((await admin.caller.alerts.current({ teamSlug })).map((a) => a.kind)).not.toContain("bucketCredentials");
    expect(mailsAbout('Bucket "media"')).toHaveLength(1);
  });

  it("keeps an alert whose mail failed and sends it at a later check, once", async () => {
    smtp.refuse(1);
    const key = await owner.caller.apiKey.create({
      ...scope(),
      name: "retry",
      expiresAt: new Date(Date.now() + 2 * DAY_MS),
    });
    const failed = await check();
    expect(failed).toMatchObject({ ok: false, mailed: 0, mailFailures: 1 });
    const [row] = await app.services.database.db.select().from(alertEvents).where(eq(alertEvents.subjectId, key.id));
    expect(row).toMatchObject({ mailedAt: null, mailError: expect.stringContaining("451") });
    expect(await check()).toMatchObject({ ok: true, mailed: 1 });
    await check();
    expect(mailsAbout('Key "retry"')).toHaveLength(1);
    await owner.caller.apiKey.revoke({ ...scope(), keyId: key.id });
  });

  it("sends one mail when several instances check at once", async () => {
    const key = await owner.caller.apiKey.create({
      ...scope(),
      name: "raced",
      expiresAt: new Date(Date.now() + 4 * DAY_MS),
    });
    const reports = await Promise.all(Array.from({ length: 4 }, () => check()));
    expect(reports.reduce((n, r) => n + r.mailed, 0)).toBe(1);
    expect(mailsAbout('Key "raced"')).toHaveLength(1);
    await owner.caller.apiKey.revoke({ ...scope(), keyId: key.id });
  });

  it("keeps the names an owner chooses out of the subject, and on their one line of a plain-text body", async () => {
    const hostile = "<img src=x onerror=alert(1)>\r\nBcc: attacker@example.com";
    await owner.caller.team.update({ teamSlug, name: `Team ${hostile}` });
    const key = await owner.caller.apiKey.create({
      ...scope(),
      name: `Key ${hostile}`,
      expiresAt: new Date(Date.now() + 5 * DAY_MS),
    });
    try {
      await check();
      const [mail, ...more] = mailsAbout("onerror");
      expect(more).toHaveLength(0);
      const { head, text } = partsOf(mail!);
      // The subject is the kind of alert alone; no header, recipient or HTML part of a name's making.
      expect(/^Subject: (.*)$/m.exec(head)?.[1]).toBe("OptStuff: an API key expires soon");
      expect(head).not.toMatch(/^bcc:/im);
      expect(head).not.toContain("attacker@example.com");
      expect(head).not.toContain("onerror");
      expect(head).toMatch(/^Content-Type: text\/plain; charset=utf-8$/im);
      expect(mail).not.toMatch(/text\/html/i);
      // In the body each name stays on its own line, its line breaks shown as escapes, not made.
      expect(text.split(/\r?\n/).filter((line) => /^bcc:/i.test(line))).toEqual([]);
      expect(text).toContain(
        String.raw`Key "Key <img src=x onerror=alert(1)>\r\nBcc: attacker@example.com" of Shop expires on`,
      );
      expect(text).toContain(String.raw`the team "Team <img src=x onerror=alert(1)>\r\nBcc: attacker@example.com".`);
    } finally {
      await owner.caller.team.update({ teamSlug, name: "Alerting" });
      await owner.caller.apiKey.revoke({ ...scope(), keyId: key.id });
    }
  });

  it("follows the team's settings: saved by admins only, audited, validated, an alert turned off is not sent", async () => {
    expect(await owner.caller.alerts.settings({ teamSlug })).toEqual({
      settings: {
        keyDayLimitPercent: 80,
        errorRatePercent: 10,
        keyExpiry: true,
        bucketCredentials: true,
        mailAdmins: true,
      },
      // SMTP is configured here: the card offers mail.
      mailConfigured: true,
    });
    const off = {
      keyDayLimitPercent: 50,
      errorRatePercent: null,
      keyExpiry: false,
      bucketCredentials: true,
      mailAdmins: true,
    };
    await expect(member.caller.alerts.saveSettings({ teamSlug, ...off })).rejects.toMatchObject({ code: "FORBIDDEN" });
    for (const bad of [{ keyDayLimitPercent: 0 }, { errorRatePercent: 101 }, { keyDayLimitPercent: 2.5 }])
      await expect(admin.caller.alerts.saveSettings({ teamSlug, ...off, ...bad })).rejects.toMatchObject({
        code: "BAD_REQUEST",
      });
    expect(await admin.caller.alerts.saveSettings({ teamSlug, ...off })).toEqual(off);
    expect(await member.caller.team.get({ teamSlug }).then((t) => t.can["alerts.read"])).toBe(false);
    const [entry] = await app.services.database.db.select().from(auditLog).where(eq(auditLog.action, "alerts.updated"));
    expect(entry).toMatchObject({
      actorId: admin.id,
      changes: expect.objectContaining({ keyExpiry: { from: true, to: false } }),
    });

    const key = await owner.caller.apiKey.create({
      ...scope(),
      name: "quiet",
      expiresAt: new Date(Date.now() + DAY_MS),
    });
    await check();
    expect(mailsAbout('Key "quiet"')).toHaveLength(0);
    expect((await admin.caller.alerts.current({ teamSlug })).some((a) => a.kind === "keyExpiry")).toBe(false);
    // Mail turned off: the banner shows the alert, nothing is mailed.
    await admin.caller.alerts.saveSettings({ teamSlug, ...off, keyExpiry: true, mailAdmins: false });
    await check();
    expect(mailsAbout('Key "quiet"')).toHaveLength(0);
    expect((await admin.caller.alerts.current({ teamSlug })).map((a) => a.message)).toContainEqual(
      expect.stringContaining('Key "quiet"'),
    );
    await owner.caller.apiKey.revoke({ ...scope(), keyId: key.id });
  });

  it("runs from its cron route with the cron secret only", async () => {
    const handle = createCronRouteHandler(async () => app.services, "check-alerts");
    const call = (authorization?: string) =>
      handle(
        new Request("http://optstuff.test/api/cron/check-alerts", {
          headers: authorization ? { authorization } : {},
        }),
      );
    expect((await call()).status).toBe(401);
    const response = await call(`Bearer ${app.services.secrets.cron}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, mailFailures: 0 });
  });
});

describe("alerts on an instance without mail", () => {
  it("say that mail is not configured, so the card offers the banner instead of a mail that never goes", async () => {
    const bare = await createTestApp();
    try {
      const someone = await signUp(bare.services, "no-mail");
      const slug = (
        await someone.caller.account.completeOnboarding({
          name: "Unmailed",
          slug: `unmailed-${someone.id.slice(0, 8).toLowerCase()}`,
        })
      ).slug;
      const answer = await someone.caller.alerts.settings({ teamSlug: slug });
      expect(answer.mailConfigured).toBe(false);
      // The team's choice is kept as saved: it takes effect once the operator sets SMTP_URL.
      expect(answer.settings.mailAdmins).toBe(true);
    } finally {
      await bare.close();
    }
  });
});
