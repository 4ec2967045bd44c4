import { teamAccountShare } from "@/server/config-cache/fair-share";
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { WatermarkSettings } from "@/lib/schemas/watermark";
import { readWatermarkSettings } from "@/server/config-cache";
import { projectImages } from "@/server/db/schema";
import { AppError, isAppError, type ErrorCode } from "@/server/errors";
import { MAX_PROJECT_IMAGE_SIDE, type UploadCheck } from "@/server/image/check-upload";
import type { DashboardAdmission } from "@/server/ratelimit/dashboard-admission";
import { changesBetween } from "@/server/audit/changes";
import type { TenancyDeps } from "./deps";
import type { ProjectScope } from "./projects";
import { quotas } from "./quotas";

export const projectImageKinds = ["watermark", "fallback"] as const;
export type ProjectImageKind = (typeof projectImageKinds)[number];

/**
 * Uploads travel base64 in a tRPC body (1 MiB cap) and every instance keeps the ones in use in memory:
 * a logo or a placeholder picture, not a photo library.
 */
export const MAX_PROJECT_IMAGE_BYTES = 512 * 1024;

/**
 * Raster formats only: an SVG would need the sanitiser on every use, and a logo exported to PNG does the
 * same job. Named as the pipeline names them (AVIF told apart from other HEIF).
 */
const ACCEPTED_FORMATS: Record<string, string> = { png: "PNG", jpeg: "JPEG", webp: "WebP", gif: "GIF", avif: "AVIF" };

export interface ProjectImageView {
  kind: ProjectImageKind;
  format: string;
  width: number;
  height: number;
  bytes: number;
  /** A data URL, for the dashboard's preview. */
  preview: string;
  updatedAt: Date;
}

export interface ProjectImagesView {
  watermark: (ProjectImageView & { settings: WatermarkSettings }) | null;
  fallback: ProjectImageView | null;
}

type Deps = Pick<TenancyDeps, "db" | "invalidate" | "now" | "audit">;

const imageTarget = (kind: ProjectImageKind) => ({ id: kind, label: kind });

export async function getProjectImages(deps: Pick<TenancyDeps, "db">, scope: ProjectScope): Promise<ProjectImagesView> {
  const rows = await deps.db.select().from(projectImages).where(eq(projectImages.projectId, scope.projectId));
  const view = (kind: ProjectImageKind) => {
    const row = rows.find((r) => r.kind === kind);
    if (!row) return null;
    const preview = `data:${mimeOf(row.format)};base64,${row.bytes.toString("base64")}`;
    return {
      kind,
      format: row.format,
      width: row.width,
      height: row.height,
      bytes: row.bytes.length,
      preview,
      updatedAt: row.updatedAt,
    };
  };
  const watermark = view("watermark");
  const settings = rows.find((r) => r.kind === "watermark")?.settings;
  return {
    watermark: watermark && { ...watermark, settings: readWatermarkSettings(settings) },
    fallback: view("fallback"),
  };
}

/**
 * Replaces the project's watermark or fallback with an uploaded image, checked the way the image route
 * checks a source (decoded whole, within bounds) so that a bad upload is refused here and never fails
 * requests later. A replaced watermark keeps its settings. Every upload that reaches the decoder counts
 * toward its team's uploads an hour (quotas.ts), refused ones too: the decode is the cost.
 */
export async function uploadProjectImage(
  deps: Deps & { checkUpload: UploadCheck; admission: DashboardAdmission },
  scope: ProjectScope,
  input: { kind: ProjectImageKind; base64: string; actorId: string },
): Promise<void> {
  const bytes = Buffer.from(input.base64, "base64");
  if (bytes.length === 0) throw new AppError("INVALID_INPUT", { message: "The file is empty" });
  if (bytes.length > MAX_PROJECT_IMAGE_BYTES)
    throw new AppError("INVALID_INPUT", { message: `The image is over ${MAX_PROJECT_IMAGE_BYTES / 1024} KiB` });
  await deps.admission.admit([quotas.uploadsPerTeamHour], scope.teamId);
  // Decoded under the share of the account that owns the team, as its images are made.
  const share = await teamAccountShare(deps.db, scope.teamId);
  const { format, width, height } = await checkedImage(deps.checkUpload, bytes, share);
  const values = {
    format,
    width,
    height,
    bytes,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    updatedBy: input.actorId,
    updatedAt: deps.now(),
  };
  await deps.db.transaction(async (tx) => {
    const where = and(eq(projectImages.projectId, scope.projectId), eq(projectImages.kind, input.kind));
    const [before] = await tx.select(imageFacts).from(projectImages).where(where).for("update");
    await tx
      .insert(projectImages)
      .values({ projectId: scope.projectId, kind: input.kind, ...values })
      .onConflictDoUpdate({ target: [projectImages.projectId, projectImages.kind], set: values });
    await deps.audit.record(tx, {
      ...scope,
      action: "image.uploaded",
      target: imageTarget(input.kind),
      changes: changesBetween(before ?? null, values, ["format", "width", "height", "sha256"]),
    });
  });
  await deps.invalidate.project(scope.projectId);
}

export async function setWatermarkSettings(
  deps: Deps,
  scope: ProjectScope,
  settings: WatermarkSettings,
  actorId: string,
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const where = and(eq(projectImages.projectId, scope.projectId), eq(projectImages.kind, "watermark"));
    const [before] = await tx
      .select({ settings: projectImages.settings })
      .from(projectImages)
      .where(where)
      .for("update");
    if (!before) throw new AppError("NOT_FOUND", { message: "Upload a watermark first" });
    await tx.update(projectImages).set({ settings, updatedBy: actorId, updatedAt: deps.now() }).where(where);
    const from = readWatermarkSettings(before.settings);
    await deps.audit.record(tx, {
      ...scope,
      action: "image.watermark_changed",
      target: imageTarget("watermark"),
      // The placement's own fields (the procedure's input also carries the path's slugs).
      changes: changesBetween<WatermarkSettings>(from, settings, Object.keys(from) as (keyof WatermarkSettings)[]),
    });
  });
  await deps.invalidate.project(scope.projectId);
}

export async function deleteProjectImage(deps: Deps, scope: ProjectScope, kind: ProjectImageKind): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(projectImages)
      .where(and(eq(projectImages.projectId, scope.projectId), eq(projectImages.kind, kind)))
      .returning(imageFacts);
    if (!deleted) throw new AppError("NOT_FOUND", { message: `This project has no ${kind}` });
    await deps.audit.record(tx, {
      ...scope,
      action: "image.deleted",
      target: imageTarget(kind),
      changes: changesBetween(deleted, null, ["format", "width", "height", "sha256"]),
    });
  });
  await deps.invalidate.project(scope.projectId);
}

/** What the log says of an image: never its bytes, which the hash names. */
const imageFacts = {
  format: projectImages.format,
  width: projectImages.width,
  height: projectImages.height,
  sha256: projectImages.sha256,
};

/**
 * The upload decoded in a transform process (check-upload.ts), never in the server; what it refuses is
 * worded for the person who chose the file.
 */
async function checkedImage(
  check: UploadCheck,
  bytes: Buffer,
  tenant: string,
): Promise<{ format: string; width: number; height: number }> {
  let facts;
  try {
    facts = await check(bytes, tenant);
  } catch (error) {
    throw uploadRefusal(error);
  }
  const { format, width, height } = facts;
  if (!Object.hasOwn(ACCEPTED_FORMATS, format)) {
    throw new AppError("INVALID_INPUT", { message: `Upload a ${Object.values(ACCEPTED_FORMATS).join(", ")} image` });
  }
  if (width > MAX_PROJECT_IMAGE_SIDE || height > MAX_PROJECT_IMAGE_SIDE) {
    throw new AppError("INVALID_INPUT", {
      message: `The image is ${width}×${height}: at most ${MAX_PROJECT_IMAGE_SIDE} px a side`,
    });
  }
  return { format, width, height };
}

/** The pipeline's refusal, said for an upload; the service's own troubles (overload, a bug) stay as they are. */
function uploadRefusal(error: unknown): unknown {
  if (!isAppError(error)) return error;
  const message = UPLOAD_MESSAGES[error.code];
  return message ? new AppError("INVALID_INPUT", { message, cause: error }) : error;
}

const UPLOAD_MESSAGES: Partial<Record<ErrorCode, string>> = {
  UNSUPPORTED_IMAGE: "That file is not an image we take: upload a PNG, JPEG, WebP, GIF or AVIF image",
  IMAGE_DECODE_FAILED: "The image could not be decoded",
  IMAGE_TOO_LARGE: `The image is too large: at most ${MAX_PROJECT_IMAGE_SIDE} px a side`,
  TRANSFORM_TIMEOUT: "The image takes too long to decode: save it again (baseline, not progressive) and upload that",
};

function mimeOf(format: string): string {
  return `image/${format}`;
}
