import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { and, asc, count, eq, gt, inArray, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditArchiveOf, type AuditArchive } from "@/server/audit-stream/archive";
import { BATCH_BYTES, BATCH_ENTRIES } from "@/server/audit-stream/batch";
import { MOVES_PER_DAY } from "@/server/audit-stream/manage";
import { BATCHES_PER_TURN, createAuditStreamer, STREAM_RETRY_S } from "@/server/audit-stream/streamer";
import { pruneAuditLog, UNSENT_KEPT_DAYS } from "@/server/audit/retention";
import { auditTrail, systemActor } from "@/server/audit/trail";
import { auditLog, auditStreams, teams, webhookDeliveries } from "@/server/db/schema";
import { rowsOf } from "@/server/db/rows-of";
import { createTestApp, type TestApp } from "../../support/app";
import { startS3, type LocalS3 } from "../../support/s3";
import { buildTenantWorld, type TenantWorld } from "../../support/tenant-world";
import { startWebhookReceiver } from "../../support/webhook-receiver";

/**
 * A team's audit log streamed as NDJSON: to a receiver on loopback (signed as Standard Webhooks,
 * checked with the `standardwebhooks` library) and to the bucket (files, and a real S3-compatible
 * server), each entry in id order and none passed over, a failing receiver retried from its place,
 * the cursor moved back and forward by an admin, and no unsent entry pruned.
 */
let app: TestApp;
let world: TenantWorld;
let other: TenantWorld;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let s3: LocalS3;

beforeAll(async () => {
  app = await createTestApp();
  [world, other] = [await buildTenantWorld(app.services, "stream"), await buildTenantWorld(app.services, "near")];
  receiver = await startWebhookReceiver();
  s3 = await startS3();
}, 60_000);
afterAll(async () => {
  await receiver?.close();
  await s3?.stop();
  await app?.close();
});

const db = () => app.services.database.db;
const owner = () => world.owner.caller;
const teamSlug = () => world.teamSlug;
const teamIdOf = async (w: TenantWorld) =>
  (await db().select({ id: teams.id }).from(teams).where(eq(teams.slug, w.teamSlug)))[0]!.id;
/** The streamer as the alert check runs it, at a moment of the test's choosing. */
const streamerAt = (now: Date, archive: AuditArchive | null = null) =>
  createAuditStreamer({
    db: db(),
    secretBox: app.services.secretBox,
    post: { allowLoopback: true, timeoutMs: 5_000 },
    archive,
    now: () => now,
    logger: app.services.logger,
  });
const idsAfter = async (teamId: string, cursor = 0) =>
  (
    await db()
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(and(eq(auditLog.teamId, teamId), gt(auditLog.id, cursor)))
      .orderBy(asc(auditLog.id))
  ).map((row) => row.id);
const streamOf = async (teamId: string) =>
  (await db().select().from(auditStreams).where(eq(auditStreams.teamId, teamId)))[0]!;
/** A few audited changes of the world's team. */
const changeSomething = async (n: number) => {
  for (let i = 0; i < n; i++) await owner().team.update({ teamSlug: teamSlug(), name: `Streamed ${i} ${Date.now()}` });
};
const linesOf = (body: string) =>
  body
    .split("\n")
    .filter((line) => line !== "")
    .map(
      (line) =>
        JSON.parse(line) as { id: number; teamId: string; action: string; ip: unknown; target: { label: string } },
    );

async function streamToReceiver(w: TenantWorld, startFrom: "now" | "oldest") {
  const { webhook, secret } = await w.owner.caller.webhooks.create({
    teamSlug: w.teamSlug,
    url: receiver.url(`/audit/${w.teamSlug}`),
    format: "standard",
    events: ["alert.keyExpiry"],
  });
  await w.owner.caller.auditStream.configure({
    teamSlug: w.teamSlug,
    destination: "webhook",
    webhookId: webhook.id,
    startFrom,
  });
  return { webhookId: webhook.id, secret };
}
/** An entry written straight to the log, as a change of the team would write it. */
const entry = (
  teamId: string,
  label: string,
  changes: Record<string, { from: unknown; to: unknown }> | null = null,
) => ({
  teamId,
  actorType: "system",
  actorLabel: "test",
  action: "team.updated",
  targetType: "team",
  targetId: teamId,
  targetLabel: label,
  changes,
});
/** The webhook events enqueued for a webhook (its delivery log). */
const eventsOf = async (webhookId: string) =>
  (
    await db()
      .select({ type: webhookDeliveries.eventType })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, webhookId))
  ).map((row) => row.type);
const receivedBy = (w: TenantWorld, since = 0) =>
  receiver.received.slice(since).filter((request) => request.path === `/audit/${w.teamSlug}`);

describe("audit streaming", () => {
  it("sends every entry of the team once, oldest first, as signed NDJSON, and then only what is new", async () => {
    const teamId = await teamIdOf(world);
    const { secret } = await streamToReceiver(world, "oldest");
    await changeSomething(3);
    const expected = await idsAfter(teamId);
    const before = receiver.received.length;
    const report = await streamerAt(new Date()).streamDue();
    expect(report).toMatchObject({ ok: true, failing: 0, entries: expected.length });

    const requests = receivedBy(world, before);
    const lines = requests.flatMap((request) => {
      expect(request.headers["content-type"]).toBe("application/x-ndjson");
      // The library's own signature over the same id, time and body (its verify() would parse the body as one JSON).
      const [id, timestamp] = [request.headers["webhook-id"] as string, request.headers["webhook-timestamp"] as string];
      const signed = new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), request.body);
      expect(request.headers["webhook-signature"]).toBe(signed);
      expect(id).toMatch(/^msg_audit_\d+_\d+_\d+$/);
      return linesOf(request.body);
    });
    expect(lines.map((line) => line.id)).toEqual(expected);
    expect(new Set(lines.map((line) => line.teamId))).toEqual(new Set([teamId]));
    expect(lines.map((line) => line.action)).toContain("audit_stream.configured");
    expect((await streamOf(teamId)).cursor).toBe(expected.at(-1));

    // Served, it goes to the back of the queue: the streams that waited longest go first next run.
    expect((await streamOf(teamId)).nextAttemptAt.getTime()).toBeGreaterThanOrEqual(Date.now() - 60_000);
    // Caught up: a run sends nothing; one change later, only that one.
    expect((await streamerAt(new Date()).streamDue()).entries).toBe(0);
    await changeSomething(1);
    const after = receiver.received.length;
    await streamerAt(new Date()).streamDue();
    expect(receivedBy(world, after).flatMap((request) => linesOf(request.body).map((line) => line.id))).toEqual(
      await idsAfter(teamId, expected.at(-1)),
    );
  });

  it("keeps its place through a failing receiver: retried after its backoff, nothing lost, nothing out of order", async () => {
    const teamId = await teamIdOf(world);
    const from = (await streamOf(teamId)).cursor;
    receiver.answer(500);
    await changeSomething(2);
    const at = new Date();
    expect(await streamerAt(at).streamDue()).toMatchObject({ failing: 1, entries: 0 });
    const failed = await streamOf(teamId);
    expect(failed).toMatchObject({ cursor: from, failures: 1, lastError: "the receiver answered 500" });
    expect(failed.nextAttemptAt.getTime()).toBe(at.getTime() + STREAM_RETRY_S[0] * 1000);

    receiver.answer(200);
    await changeSomething(1);
    const before = receiver.received.length;
    // Not before its time.
    expect((await streamerAt(new Date(at.getTime() + 59_000)).streamDue()).entries).toBe(0);
    await streamerAt(new Date(at.getTime() + 61_000)).streamDue();
    expect(receivedBy(world, before).flatMap((request) => linesOf(request.body).map((line) => line.id))).toEqual(
      await idsAfter(teamId, from),
    );
    expect(await streamOf(teamId)).toMatchObject({ failures: 0, lastError: null });
  });

  it("sends again from a day or from every kept entry, or skips to now, when an admin moves the cursor", async () => {
    const teamId = await teamIdOf(world);
    const all = await idsAfter(teamId);
    expect(await owner().auditStream.reset({ teamSlug: teamSlug(), to: "oldest" })).toEqual({ cursor: 0 });
    let status = await owner().auditStream.status({ teamSlug: teamSlug() });
    // The reset is an entry of its own, waiting with the rest.
    expect(status.stream).toMatchObject({ cursor: 0, waiting: all.length + 1 });
    // Again from a day never goes forward: today's entries wait already, none is skipped.
    const today = new Date().toISOString().slice(0, 10);
    expect(await owner().auditStream.reset({ teamSlug: teamSlug(), to: "day", day: today })).toEqual({ cursor: 0 });

    const before = receiver.received.length;
    await streamerAt(new Date()).streamDue();
    const resent = receivedBy(world, before).flatMap((request) => linesOf(request.body).map((line) => line.id));
    expect(resent).toEqual(await idsAfter(teamId));

    await owner().auditStream.reset({ teamSlug: teamSlug(), to: "day", day: today });
    status = await owner().auditStream.status({ teamSlug: teamSlug() });
    // Every entry of the world was written today: all of them wait again.
    expect(status.stream!.waiting).toBe((await idsAfter(teamId)).length);

    const { cursor } = await owner().auditStream.reset({ teamSlug: teamSlug(), to: "now" });
    expect(await idsAfter(teamId, cursor)).toHaveLength(1); // the reset's own entry, written after
    await expect(
      owner().auditStream.reset({ teamSlug: teamSlug(), to: "day", day: "2999-01-01" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: "Choose today or a day before it" });
    await expect(owner().auditStream.reset({ teamSlug: teamSlug(), to: "day" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(
      owner().auditStream.reset({ teamSlug: teamSlug(), to: "day", day: "0000-01-01" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: "Enter a day from 1970 on" });
    // Each move back writes the log again, and so does a destination changed: ten of them in 24
    // hours, then a refusal that changes nothing.
    const changes = ["audit_stream.cursor_reset", "audit_stream.configured"];
    const [{ n: made } = { n: 0 }] = await db()
      .select({ n: count() })
      .from(auditLog)
      .where(and(eq(auditLog.teamId, teamId), inArray(auditLog.action, changes)));
    for (let moves = made; moves < MOVES_PER_DAY; moves++)
      await owner().auditStream.reset({ teamSlug: teamSlug(), to: "now" });
    const held = await streamOf(teamId);
    const refused = {
      code: "TOO_MANY_REQUESTS",
      message: `The audit stream can be changed ${MOVES_PER_DAY} times in 24 hours: try again tomorrow`,
    };
    await expect(owner().auditStream.reset({ teamSlug: teamSlug(), to: "oldest" })).rejects.toMatchObject(refused);
    const { webhook: spare } = await owner().webhooks.create({
      teamSlug: teamSlug(),
      url: receiver.url(`/spare/${teamSlug()}`),
      format: "standard",
      events: ["alert.keyExpiry"],
    });
    await expect(
      owner().auditStream.configure({ teamSlug: teamSlug(), destination: "webhook", webhookId: spare.id }),
    ).rejects.toMatchObject(refused);
    // The same destination again is a "try now": no copy, allowed.
    await owner().auditStream.configure({ teamSlug: teamSlug(), destination: "webhook", webhookId: held.webhookId! });
    expect(await streamOf(teamId)).toMatchObject({ cursor: held.cursor, webhookId: held.webhookId });
    await owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: spare.id });
    // A day later, the team may change it again.
    await db()
      .update(auditLog)
      .set({ createdAt: sql`${auditLog.createdAt} - interval '25 hours'` })
      .where(and(eq(auditLog.teamId, teamId), inArray(auditLog.action, changes)));
    await owner().auditStream.reset({ teamSlug: teamSlug(), to: "now" });
    await streamerAt(new Date()).streamDue();
  });

  it("lets an admin's change made while a batch is out win: the batch moves nothing, the new destination gets it", async () => {
    const teamId = await teamIdOf(world);
    const { cursor: from, webhookId: left } = await streamOf(teamId);
    const { webhook: next } = await owner().webhooks.create({
      teamSlug: teamSlug(),
      url: receiver.url(`/audit-next/${teamSlug()}`),
      format: "standard",
      events: ["alert.keyExpiry"],
    });
    await changeSomething(1);
    const before = receiver.received.length;
    receiver.beforeNextAnswer(() =>
      owner().auditStream.configure({ teamSlug: teamSlug(), destination: "webhook", webhookId: next.id }),
    );
    await streamerAt(new Date()).streamDue();
    // The batch went to the old receiver, answered 200 after the change: the cursor stayed.
    expect(receivedBy(world, before)).toHaveLength(1);
    expect((await streamOf(teamId)).cursor).toBe(from);
    // The receiver left behind is told, whatever events its webhook chose (it chose an alert only).
    expect(await eventsOf(left!)).toContain("audit.audit_stream.configured");
    await streamerAt(new Date()).streamDue();
    const atNext = receiver.received
      .slice(before)
      .filter((request) => request.path === `/audit-next/${teamSlug()}`)
      .flatMap((request) => linesOf(request.body).map((line) => line.id));
    expect(atNext).toEqual(await idsAfter(teamId, from));
    expect((await streamOf(teamId)).cursor).toBe(atNext.at(-1));
  });

  it("never prunes an entry it has not sent within 90 days past the retention", async () => {
    const teamId = await teamIdOf(world);
    const sent = await idsAfter(teamId);
    const stream = await streamOf(teamId);
    expect(sent.at(-1)).toBe(stream.cursor);
    receiver.answer(500);
    await changeSomething(2);
    const unsent = await idsAfter(teamId, stream.cursor);
    await streamerAt(new Date()).streamDue();
    const otherTeamId = await teamIdOf(other);
    expect((await idsAfter(otherTeamId)).length).toBeGreaterThan(0);

    const day = 86_400_000;
    await pruneAuditLog(db(), new Date(Date.now() + UNSENT_KEPT_DAYS * day), 1);
    expect(await idsAfter(teamId)).toEqual(unsent);
    // A team without a stream keeps its retention.
    expect(await idsAfter(otherTeamId)).toEqual([]);

    receiver.answer(200);
    await db().update(auditStreams).set({ nextAttemptAt: new Date() }).where(eq(auditStreams.teamId, teamId));
    await streamerAt(new Date()).streamDue();
  });

  it("waits with its place kept when its webhook is deleted, and goes on from there to the next one chosen", async () => {
    const teamId = await teamIdOf(world);
    const stream = await streamOf(teamId);
    await owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: stream.webhookId! });
    await changeSomething(1);
    const status = await owner().auditStream.status({ teamSlug: teamSlug() });
    expect(status.stream).toMatchObject({
      destination: "webhook",
      webhookId: null,
      cursor: stream.cursor,
      lastError: "its webhook was deleted: choose another",
    });
    expect((await streamerAt(new Date()).streamDue()).entries).toBe(0);

    const { webhook } = await owner().webhooks.create({
      teamSlug: teamSlug(),
      url: receiver.url(`/audit/${teamSlug()}`),
      format: "standard",
      events: ["alert.keyExpiry"],
    });
    await owner().auditStream.configure({ teamSlug: teamSlug(), destination: "webhook", webhookId: webhook.id });
    const before = receiver.received.length;
    await streamerAt(new Date()).streamDue();
    expect(receivedBy(world, before).flatMap((request) => linesOf(request.body).map((line) => line.id))).toEqual(
      await idsAfter(teamId, stream.cursor),
    );
  });

  it("refuses a Slack webhook, another team's webhook, the bucket where none is kept, and a member", async () => {
    const { webhook: slack } = await owner().webhooks.create({
      teamSlug: teamSlug(),
      url: receiver.url("/slack"),
      format: "slack",
      events: ["alert.keyExpiry"],
    });
    await expect(
      owner().auditStream.configure({ teamSlug: teamSlug(), destination: "webhook", webhookId: slack.id }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Choose a webhook that sends signed JSON: Slack's format cannot carry the log",
    });
    await expect(
      owner().auditStream.configure({ teamSlug: teamSlug(), destination: "webhook", webhookId: other.webhookId }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(owner().auditStream.configure({ teamSlug: teamSlug(), destination: "webhook" })).rejects.toMatchObject(
      { code: "BAD_REQUEST" },
    );
    await expect(owner().auditStream.configure({ teamSlug: teamSlug(), destination: "bucket" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "This instance keeps no results, so it has no bucket to write to",
    });
    await expect(world.member.caller.auditStream.status({ teamSlug: teamSlug() })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(other.owner.caller.auditStream.reset({ teamSlug: other.teamSlug, to: "now" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: slack.id });
  });

  it("writes batches to the bucket as objects named in order: files under the data directory, and S3", async () => {
    const teamId = await teamIdOf(other);
    const root = mkdtempSync(path.join(tmpdir(), "optstuff-audit-archive-"));
    const files = auditArchiveOf({ kind: "files", root: path.join(root, "results"), maxBytes: 1 << 20 })!;
    // More than a batch holds.
    await db()
      .insert(auditLog)
      .values(Array.from({ length: BATCH_ENTRIES + 20 }, (_, i) => entry(teamId, `change ${i}`)));
    await db().insert(auditStreams).values({ teamId, destination: "bucket", cursor: 0 });
    expect(await streamerAt(new Date(), files).streamDue()).toMatchObject({ failing: 0 });
    const day = new Date().toISOString().slice(0, 10).split("-");
    const folder = path.join(root, "audit", teamId, ...day);
    const names = readdirSync(folder).sort();
    expect(names).toHaveLength(2);
    const fromFiles = names.flatMap((name) => linesOf(readFileSync(path.join(folder, name), "utf8")).map((l) => l.id));
    expect(fromFiles).toEqual(await idsAfter(teamId));

    const bucket = await s3.bucket();
    const inBucket = auditArchiveOf({ kind: "s3", maxBytes: 1 << 20, ...s3.settings(bucket) })!;
    await db().update(auditStreams).set({ cursor: 0, leasedUntil: null }).where(eq(auditStreams.teamId, teamId));
    await streamerAt(new Date(), inBucket).streamDue();
    const listed = await s3.client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `audit/results/${teamId}/` }),
    );
    const keys = (listed.Contents ?? []).map((object) => object.Key!).sort();
    expect(keys.map((key) => path.basename(key))).toEqual(names);
    const bodies = await Promise.all(
      keys.map(async (key) => {
        const object = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        expect(object.ContentType).toBe("application/x-ndjson");
        return object.Body!.transformToString();
      }),
    );
    expect(bodies.flatMap((body) => linesOf(body).map((line) => line.id))).toEqual(await idsAfter(teamId));
    // A results prefix that holds `audit/`, or is held by it, would put the archive under the results'
    // pruning: no bucket then.
    for (const prefix of ["", "aud", "audit/results/"])
      expect(auditArchiveOf({ kind: "s3", maxBytes: 1, bucket, prefix, region: "x", forcePathStyle: true })).toBeNull();
    // Teams are told where in words, not the operator's path or bucket name.
    expect(`${files.shown} ${inBucket.shown}`).not.toMatch(new RegExp(`${bucket}|${root}`));
  });

  it("sends a long backlog ten batches a turn, and the next team's in the same run; a batch stays about 1 MB", async () => {
    const [long, short] = [await buildTenantWorld(app.services, "long"), await buildTenantWorld(app.services, "short")];
    const [longId, shortId] = [await teamIdOf(long), await teamIdOf(short)];
    const root = mkdtempSync(path.join(tmpdir(), "optstuff-audit-turns-"));
    const files = auditArchiveOf({ kind: "files", root: path.join(root, "results"), maxBytes: 1 << 20 })!;
    // More than ten full batches for one team, written first and waiting longest.
    const backlog = BATCH_ENTRIES * BATCHES_PER_TURN + 50;
    for (let from = 0; from < backlog; from += 1_000)
      await db()
        .insert(auditLog)
        .values(Array.from({ length: Math.min(1_000, backlog - from) }, (_, i) => entry(longId, `change ${from + i}`)));
    // Six entries of about 300 kB: three fit in a batch's bytes, the fourth does not.
    const big = "x".repeat(300_000);
    await db()
      .insert(auditLog)
      .values(Array.from({ length: 6 }, (_, i) => entry(shortId, `big ${i}`, { note: { from: null, to: big } })));
    const now = new Date();
    await db()
      .insert(auditStreams)
      .values([
        { teamId: longId, destination: "bucket", cursor: 0, nextAttemptAt: new Date(now.getTime() - 120_000) },
        { teamId: shortId, destination: "bucket", cursor: 0, nextAttemptAt: new Date(now.getTime() - 60_000) },
      ]);

    await streamerAt(now, files).streamDue();
    const longIds = await idsAfter(longId);
    expect((await streamOf(longId)).cursor).toBe(longIds[BATCH_ENTRIES * BATCHES_PER_TURN - 1]);
    expect((await streamOf(shortId)).cursor).toBe((await idsAfter(shortId)).at(-1));
    const day = now.toISOString().slice(0, 10).split("-");
    const shortFolder = path.join(root, "audit", shortId, ...day);
    const bodies = readdirSync(shortFolder)
      .sort()
      .map((name) => readFileSync(path.join(shortFolder, name), "utf8"));
    // The team's own entries, then three of the big ones; the other three in a batch of their own.
    const bigIn = (body: string) => linesOf(body).filter((line) => line.target.label.startsWith("big ")).length;
    expect(bodies.map(bigIn)).toEqual([3, 3]);
    for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(BATCH_BYTES);

    // The next run sends the rest, behind the teams that waited longer.
    await streamerAt(new Date(now.getTime() + 60_000), files).streamDue();
    expect((await streamOf(longId)).cursor).toBe(longIds.at(-1));
    const longFolder = path.join(root, "audit", longId, ...day);
    const sent = readdirSync(longFolder)
      .sort()
      .flatMap((name) => linesOf(readFileSync(path.join(longFolder, name), "utf8")).map((line) => line.id));
    expect(sent).toEqual(longIds);
  }, 60_000);

  // Last of these: it moves the clock months on, and the retention takes every team's entries.
  it("does not keep an entry it never sends for ever: 90 days past the retention, it is pruned", async () => {
    const idle = await buildTenantWorld(app.services, "idle");
    const teamId = await teamIdOf(idle);
    // Stopped, a stream tells the receiver it leaves.
    const { webhookId } = await streamToReceiver(idle, "oldest");
    await idle.owner.caller.auditStream.remove({ teamSlug: idle.teamSlug });
    expect(await eventsOf(webhookId)).toEqual(["audit.audit_stream.removed"]);
    // A stream that is never sent (its bucket is on no instance): every entry waits.
    await db().insert(auditStreams).values({ teamId, destination: "bucket", cursor: 0 });
    const waiting = await idsAfter(teamId);
    expect(waiting.length).toBeGreaterThan(0);
    const day = 86_400_000;
    await pruneAuditLog(db(), new Date(Date.now() + UNSENT_KEPT_DAYS * day), 1);
    expect(await idsAfter(teamId)).toEqual(waiting);
    await pruneAuditLog(db(), new Date(Date.now() + (UNSENT_KEPT_DAYS + 2) * day + 60_000), 1);
    expect(await idsAfter(teamId)).toEqual([]);
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("audit streaming on PostgreSQL (transactions at once)", () => {
  it("passes over no entry whose transaction commits after a later entry's", async () => {
    const teamId = await teamIdOf(world);
    receiver.answer(200);
    await db().update(auditStreams).set({ nextAttemptAt: new Date() }).where(eq(auditStreams.teamId, teamId));
    await streamerAt(new Date()).streamDue();
    const from = (await streamOf(teamId)).cursor;
    expect(await idsAfter(teamId, from)).toEqual([]);

    const trail = auditTrail(systemActor("test"), () => new Date());
    const event = (label: string) => ({ teamId, action: "team.updated" as const, target: { id: teamId, label } });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let recorded!: () => void;
    const firstRecorded = new Promise<void>((resolve) => (recorded = resolve));
    // The first entry's transaction stays open after its entry is written...
    const first = db().transaction(async (tx) => {
      await trail.record(tx, event("first"));
      recorded();
      await held;
    });
    await firstRecorded;
    // ...while a second change writes one: it commits at once (a higher id visible below an unseen
    // lower one), or waits for the first's entries to commit. Whichever it does, the stream runs then.
    let secondDone = false;
    const second = trail.record(db(), event("second")).then(() => (secondDone = true));
    for (let tries = 0; !secondDone && !(await waitingForAdvisoryLock()); tries++) {
      expect(tries).toBeLessThan(500);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await streamerAt(new Date()).streamDue();
    release();
    await Promise.all([first, second]);
    await streamerAt(new Date()).streamDue();
    const sent = receiver.received
      .filter((request) => request.path === `/audit/${world.teamSlug}`)
      .flatMap((request) => linesOf(request.body).map((line) => line.id))
      .filter((id) => id > from);
    expect(sent).toEqual(await idsAfter(teamId, from));
    expect(sent).toHaveLength(2);
  });

  it("takes a webhook's deletion after a change that holds the team's entries, never into a deadlock", async () => {
    const teamId = await teamIdOf(world);
    const { webhook } = await owner().webhooks.create({
      teamSlug: teamSlug(),
      url: receiver.url("/chosen"),
      format: "standard",
      events: ["audit.team.updated"],
    });
    const trail = auditTrail(systemActor("test"), () => new Date());
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let recorded!: () => void;
    const firstRecorded = new Promise<void>((resolve) => (recorded = resolve));
    // A change holds the team's entries (its first entry is one the webhook did not choose)...
    const change = db().transaction(async (tx) => {
      await trail.record(tx, { teamId, action: "member.role_changed", target: { id: teamId, label: "first" } });
      recorded();
      await held;
      // ...and then writes one it chose: a delivery whose key points at the webhook being deleted.
      await trail.record(tx, { teamId, action: "team.updated", target: { id: teamId, label: "second" } });
    });
    await firstRecorded;
    const deletion = owner().webhooks.delete({ teamSlug: teamSlug(), webhookId: webhook.id });
    for (let tries = 0; !(await waitingForAdvisoryLock()); tries++) {
      expect(tries).toBeLessThan(500);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    release();
    await Promise.all([change, deletion]);
    expect(await eventsOf(webhook.id)).toEqual([]);
  });
});

async function waitingForAdvisoryLock(): Promise<boolean> {
  const rows = rowsOf<{ n: number }>(
    await db().execute(sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`),
  );
  return (rows[0]?.n ?? 0) > 0;
}
