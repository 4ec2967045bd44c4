/**
 * Tenants for the served contract tests, written into an embedded database before the server opens it
 * (one PGlite process at a time): a project allowing `local` and a loopback origin, a key of it limited
 * to one transform a minute, a key of it held by a policy, and a project with a referer allowlist.
 * Usage (OPTSTUFF_DATA_DIR set): tsx tests/support/contract-fixture.ts <out.json> <origin host>
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import sharp from "sharp";
import { eq } from "drizzle-orm";
import { env } from "@/env";
import { openDatabase } from "@/server/db/client";
import { apiKeys, projectImages, projects } from "@/server/db/schema";
import { loadSecrets } from "@/server/config/secrets";
import { serverDatabaseTargetOf } from "@/server/db/target";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { setupAudit } from "./audit";

export interface ContractFixture {
  slug: string;
  key: { publicKey: string; secretKey: string };
  limitedKey: { publicKey: string; secretKey: string };
  /** A key of the main project held by a policy: w, f, txt and txtstyle only, exp ≤ 1 h, partner.example only. */
  partnerKey: { publicKey: string; secretKey: string };
  refererSlug: string;
  refererKey: { publicKey: string; secretKey: string };
  /** A project with a red watermark on every output and a green fallback image. */
  imagesSlug: string;
  imagesKey: { publicKey: string; secretKey: string };
}

const [out, originHost] = process.argv.slice(2) as [string, string];
const settings = env();
const secrets = loadSecrets(settings);
const database = await openDatabase(serverDatabaseTargetOf(settings));
const deps = {
  db: database.db,
  secretBox: createSecretBox(secrets.keyEncryption, secrets.keyEncryptionPrevious),
  audit: setupAudit,
  now: () => new Date(),
};
const keyOf = (key: { publicKey: string; secretKey: string }) => ({
  publicKey: key.publicKey,
  secretKey: key.secretKey,
});
try {
  const main = await bootstrap(deps, {
    teamSlug: "wire",
    projectSlug: "wire",
    keyName: "main",
    sourceHosts: ["local", originHost],
    allowLoopback: true,
  });
  const limited = await createApiKey(deps, { projectId: main.project.id }, { name: "limited", expiresAt: null });
  await database.db.update(apiKeys).set({ rateLimitPerMinute: 1 }).where(eq(apiKeys.publicKey, limited.publicKey));
  const partner = await createApiKey(deps, { projectId: main.project.id }, { name: "partner", expiresAt: null });
  const policy = {
    operations: ["w", "f", "txt", "txtstyle"],
    presets: null,
    maxExpirySeconds: 3600,
    referers: ["partner.example"],
  };
  await database.db.update(apiKeys).set({ policy }).where(eq(apiKeys.publicKey, partner.publicKey));
  const referer = await bootstrap(deps, {
    teamSlug: "wire",
    projectSlug: "refs",
    keyName: "refs",
    sourceHosts: ["local"],
  });
  await database.db
    .update(projects)
    .set({ allowedRefererHosts: ["site.example"] })
    .where(eq(projects.id, referer.project.id));
  const images = await bootstrap(deps, {
    teamSlug: "wire",
    projectSlug: "marks",
    keyName: "marks",
    sourceHosts: ["local", originHost],
    allowLoopback: true,
  });
  const solid = (width: number, height: number, background: string) =>
    sharp({ create: { width, height, channels: 3, background } })
      .png()
      .toBuffer();
  for (const [kind, bytes, settings] of [
    [
      "watermark",
      await solid(40, 20, "#f00"),
      { opacity: 1, gravity: "southeast", x: 0, y: 0, scale: 0.25, always: true },
    ],
    ["fallback", await solid(200, 100, "#0f0"), {}],
  ] as const) {
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    await database.db
      .insert(projectImages)
      .values({ projectId: images.project.id, kind, bytes, sha256, format: "png", width: 1, height: 1, settings });
  }
  const fixture: ContractFixture = {
    slug: main.project.slug,
    key: keyOf(main.key),
    limitedKey: keyOf(limited),
    partnerKey: keyOf(partner),
    refererSlug: referer.project.slug,
    refererKey: keyOf(referer.key),
    imagesSlug: images.project.slug,
    imagesKey: keyOf(images.key),
  };
  writeFileSync(out, JSON.stringify(fixture));
} finally {
  await database.close();
}
