import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/server/db/client";
import { eq } from "drizzle-orm";
import { apiKeys, sourceBuckets, teamWebhooks } from "@/server/db/schema";
import { createWebhook } from "@/server/webhooks/manage";
import { webhookSealContext } from "@/server/webhooks/sender";
import { bucketSealContext } from "@/server/delivery/buckets";
import { saveBucket } from "@/server/tenancy/source-buckets";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { resealSecrets } from "@/server/tenancy/reseal-secrets";
import { EXAMPLE_BUCKET } from "../support/buckets";
import { createTestDatabase } from "../support/database";
import { setupAudit } from "../support/audit";

const BUCKET = EXAMPLE_BUCKET;
let database: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.close());

describe("master-secret rotation", () => {
  it("re-seals every secret under the new master so the old one can be dropped, idempotently", async () => {
    const old = createSecretBox("master-2025");
    const first = await bootstrap(
      { db: database.db, secretBox: old, audit: setupAudit, now: () => new Date() },
      { teamSlug: "acme", projectSlug: "blog", keyName: "a" },
    );
    const second = await createApiKey(
      { db: database.db, secretBox: old, audit: setupAudit, now: () => new Date() },
      { projectId: first.project.id },
      { name: "b" },
    );

    const rotating = createSecretBox("master-2026", "master-2025");
    const outcome = await resealSecrets({ db: database.db, secretBox: rotating });
    expect(outcome).toMatchObject({ resealed: 2, current: 0 });
    expect(outcome.publicKeys.sort()).toEqual([first.key.publicKey, second.publicKey].sort());
    expect(await resealSecrets({ db: database.db, secretBox: rotating })).toEqual({
      resealed: 0,
      current: 2,
      publicKeys: [],
      projectIds: [],
    });

    const rotated = createSecretBox("master-2026");
    const rows = await database.db
      .select({ publicKey: apiKeys.publicKey, sealed: apiKeys.encryptedSecret })
      .from(apiKeys);
    const opened = Object.fromEntries(rows.map((r) => [r.publicKey, rotated.open(r.sealed, r.publicKey)]));
    expect(opened).toEqual({ [first.key.publicKey]: first.key.secretKey, [second.publicKey]: second.secretKey });
  });

  it("re-seals private buckets' secrets too, still bound to their rows", async () => {
    // A database of its own: the first case's keys are sealed under a master this one does not know.
    await database.close();
    database = await createTestDatabase();
    const old = createSecretBox("bucket-master-1");
    const { project } = await bootstrap(
      { db: database.db, secretBox: old, audit: setupAudit, now: () => new Date() },
      { teamSlug: "media", projectSlug: "site", keyName: "a" },
    );
    const deps = {
      db: database.db,
      secretBox: old,
      invalidate: { project: async () => undefined } as never,
      now: () => new Date(),
      hostPolicy: {},
      audit: setupAudit,
    };
    await saveBucket(deps, { teamId: project.teamId, projectId: project.id }, { ...BUCKET, actorId: null as never });
    const rotating = createSecretBox("bucket-master-2", "bucket-master-1");
    const outcome = await resealSecrets({ db: database.db, secretBox: rotating });
    expect(outcome.projectIds).toEqual([project.id]);
    const [row] = await database.db.select().from(sourceBuckets).where(eq(sourceBuckets.projectId, project.id));
    expect(createSecretBox("bucket-master-2").open(row!.sealedSecret, bucketSealContext(row!.id))).toBe(
      BUCKET.secretAccessKey,
    );
    expect(() => createSecretBox("bucket-master-2").open(row!.sealedSecret, bucketSealContext(project.id))).toThrow();
  });

  it("re-seals webhooks' addresses and signing secrets, still bound to their rows, once", async () => {
    await database.close();
    database = await createTestDatabase();
    const old = createSecretBox("hook-master-1");
    const { project } = await bootstrap(
      { db: database.db, secretBox: old, audit: setupAudit, now: () => new Date() },
      { teamSlug: "hooked", projectSlug: "site", keyName: "a" },
    );
    const deps = { db: database.db, secretBox: old, audit: setupAudit, now: () => new Date(), allowLoopback: false };
    const { webhook, secret } = await createWebhook(deps, project.teamId, {
      url: "https://hooks.example/services/T1/B2/token",
      format: "slack",
      events: ["alert.errorRate"],
    });
    const rotating = createSecretBox("hook-master-2", "hook-master-1");
    expect(await resealSecrets({ db: database.db, secretBox: rotating })).toMatchObject({ resealed: 2, current: 0 });
    expect(await resealSecrets({ db: database.db, secretBox: rotating })).toMatchObject({ resealed: 0, current: 2 });
    const [row] = await database.db.select().from(teamWebhooks).where(eq(teamWebhooks.id, webhook.id));
    const rotated = createSecretBox("hook-master-2");
    expect(rotated.open(row!.sealedUrl, webhookSealContext.url(webhook.id))).toBe(
      "https://hooks.example/services/T1/B2/token",
    );
    expect(rotated.open(row!.sealedSecret, webhookSealContext.secret(webhook.id))).toBe(secret);
    expect(() => rotated.open(row!.sealedSecret, webhookSealContext.url(webhook.id))).toThrow();
  });
});
