import { eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { apiKeys, presets, projectImages, projects, sourceBuckets, sourcePurges } from "@/server/db/schema";
import { bucketRevision } from "./bucket-revision";
import { firstOwnerOfProjectTeam, shareOf } from "./fair-share";
import { readWatermarkSettings } from "./project-images";
import type { ConfigStore } from "./config-store";
import { effectiveKeyLimits } from "./key-limits";

/** The source of truth: one indexed select per lookup. */
export function createDatabaseConfigStore(db: Database): ConfigStore {
  return {
    async getApiKey(publicKey) {
      // Deliberately no `revoked_at is null` filter: see ApiKeyConfig.revokedAt.
      const [row] = await db
        .select({
          id: apiKeys.id,
          projectId: apiKeys.projectId,
          publicKey: apiKeys.publicKey,
          encryptedSecret: apiKeys.encryptedSecret,
          expiresAt: apiKeys.expiresAt,
          revokedAt: apiKeys.revokedAt,
          rateLimitPerMinute: apiKeys.rateLimitPerMinute,
          rateLimitPerDay: apiKeys.rateLimitPerDay,
          policy: apiKeys.policy,
          spendCap: apiKeys.spendCap,
          cap: apiKeys.capReached,
          capUntil: apiKeys.capReachedUntil,
        })
        .from(apiKeys)
        .where(eq(apiKeys.publicKey, publicKey))
        .limit(1);
      if (!row) return null;
      const { spendCap, cap, capUntil, ...key } = row;
      const limits = effectiveKeyLimits(key);
      const limit = cap && spendCap?.[cap];
      return {
        ...key,
        rateLimitPerMinute: limits.perMinute,
        rateLimitPerDay: limits.perDay,
        capReached: cap && limit && capUntil ? { cap, limit, untilMs: capUntil.getTime() } : null,
      };
    },
    async getProject(projectId) {
      const [row] = await db
        .select({
          id: projects.id,
          teamId: projects.teamId,
          firstOwner: firstOwnerOfProjectTeam,
          slug: projects.slug,
          allowedSourceHosts: projects.allowedSourceHosts,
          allowedRefererHosts: projects.allowedRefererHosts,
          cacheBase: projects.cacheBase,
          presetsOnly: projects.presetsOnly,
          defaultQuality: projects.defaultQuality,
        })
        .from(projects)
        .where(eq(projects.id, projectId))
        .limit(1);
      if (!row) return null;
      const [purged, named, images, buckets] = await Promise.all([
        db
          .select({ source: sourcePurges.source, generation: sourcePurges.generation })
          .from(sourcePurges)
          .where(eq(sourcePurges.projectId, projectId)),
        db
          .select({ name: presets.name, operations: presets.operations })
          .from(presets)
          .where(eq(presets.projectId, projectId)),
        // Hashes and settings only: the bytes are read when a transform needs them.
        db
          .select({ kind: projectImages.kind, sha256: projectImages.sha256, settings: projectImages.settings })
          .from(projectImages)
          .where(eq(projectImages.projectId, projectId)),
        db.select().from(sourceBuckets).where(eq(sourceBuckets.projectId, projectId)),
      ]);
      const watermark = images.find((image) => image.kind === "watermark");
      const fallback = images.find((image) => image.kind === "fallback");
      const { cacheBase, firstOwner, ...project } = row;
      return {
        ...project,
        account: shareOf(firstOwner),
        cache: { base: cacheBase, sources: Object.fromEntries(purged.map((p) => [p.source, p.generation])) },
        presets: Object.fromEntries(named.map((p) => [p.name, p.operations])),
        watermark: watermark ? { ...readWatermarkSettings(watermark.settings), sha256: watermark.sha256 } : null,
        fallback: fallback ? { sha256: fallback.sha256 } : null,
        buckets: Object.fromEntries(
          buckets.map(({ alias, id, endpoint, region, bucket, prefix, forcePathStyle, accessKeyId, sealedSecret }) => {
            const settings = { id, endpoint, region, bucket, prefix, forcePathStyle, accessKeyId, sealedSecret };
            return [alias, { ...settings, revision: bucketRevision(settings) }];
          }),
        ),
      };
    },
  };
}
