import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import sharp from "sharp";
import type { WatermarkSettings } from "@/lib/schemas/watermark";
import { readWatermarkSettings } from "@/server/config-cache";
import { projectImages } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import type { TenancyDeps } from "./deps";
import type { ProjectScope } from "./projects";

export const projectImageKinds = ["watermark", "fallback"] as const;
export type ProjectImageKind = (typeof projectImageKinds)[number];

/**
 * Uploads travel base64 in a tRPC body (1 MiB cap) and every instance keeps the ones in use in memory:
 * a logo or a placeholder picture, not a photo library.
 */
export const MAX_PROJECT_IMAGE_BYTES = 512 * 1024;
export const MAX_PROJECT_IMAGE_SIDE = 2048;
/** Raster formats only: an SVG would need the sanitiser on every use, and a logo exported to PNG does the same job. */
const ACCEPTED_FORMATS: Record<string, string> = { png: "PNG", jpeg: "JPEG", webp: "WebP", gif: "GIF", heif: "AVIF" };

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

type Deps = Pick<TenancyDeps, "db" | "invalidate" | "now">;

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
 * requests later. A replaced watermark keeps its settings.
 */
export async function uploadProjectImage(
  deps: Deps,
  scope: ProjectScope,
  input: { kind: ProjectImageKind; base64: string; actorId: string },
): Promise<void> {
  const bytes = Buffer.from(input.base64, "base64");
  if (bytes.length === 0) throw new AppError("INVALID_INPUT", { message: "The file is empty" });
  if (bytes.length > MAX_PROJECT_IMAGE_BYTES)
    throw new AppError("INVALID_INPUT", { message: `The image is over ${MAX_PROJECT_IMAGE_BYTES / 1024} KiB` });
  const { format, width, height } = await checkedImage(bytes);
  const values = {
    format,
    width,
    height,
    bytes,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    updatedBy: input.actorId,
    updatedAt: deps.now(),
  };
  await deps.db
    .insert(projectImages)
    .values({ projectId: scope.projectId, kind: input.kind, ...values })
    .onConflictDoUpdate({ target: [projectImages.projectId, projectImages.kind], set: values });
  await deps.invalidate.project(scope.projectId);
}

export async function setWatermarkSettings(
  deps: Deps,
  scope: ProjectScope,
  settings: WatermarkSettings,
  actorId: string,
): Promise<void> {
  const updated = await deps.db
    .update(projectImages)
    .set({ settings, updatedBy: actorId, updatedAt: deps.now() })
    .where(and(eq(projectImages.projectId, scope.projectId), eq(projectImages.kind, "watermark")))
    .returning({ kind: projectImages.kind });
  if (updated.length === 0) throw new AppError("NOT_FOUND", { message: "Upload a watermark first" });
  await deps.invalidate.project(scope.projectId);
}

export async function deleteProjectImage(deps: Deps, scope: ProjectScope, kind: ProjectImageKind): Promise<void> {
  const deleted = await deps.db
    .delete(projectImages)
    .where(and(eq(projectImages.projectId, scope.projectId), eq(projectImages.kind, kind)))
    .returning({ kind: projectImages.kind });
  if (deleted.length === 0) throw new AppError("NOT_FOUND", { message: `This project has no ${kind}` });
  await deps.invalidate.project(scope.projectId);
}

async function checkedImage(bytes: Buffer): Promise<{ format: string; width: number; height: number }> {
  const limitInputPixels = MAX_PROJECT_IMAGE_SIDE * MAX_PROJECT_IMAGE_SIDE;
  let metadata;
  try {
    // The header only, so no pixel limit here: an oversized image is refused below for its size,
    // not reported as "not an image" (sharp's limit would throw before the size could be named).
    metadata = await sharp(bytes, { limitInputPixels: false, failOn: "error" }).metadata();
  } catch (error) {
    throw new AppError("INVALID_INPUT", { message: "That file is not an image", cause: error });
  }
  const format = metadata.format === "heif" && metadata.compression !== "av1" ? "heic" : metadata.format;
  if (!format || !Object.hasOwn(ACCEPTED_FORMATS, format)) {
    throw new AppError("INVALID_INPUT", { message: `Upload a ${Object.values(ACCEPTED_FORMATS).join(", ")} image` });
  }
  const width = metadata.autoOrient?.width ?? metadata.width ?? 0;
  const height = metadata.autoOrient?.height ?? metadata.height ?? 0;
  if (width > MAX_PROJECT_IMAGE_SIDE || height > MAX_PROJECT_IMAGE_SIDE) {
    throw new AppError("INVALID_INPUT", {
      message: `The image is ${width}×${height}: at most ${MAX_PROJECT_IMAGE_SIDE} px a side`,
    });
  }
  try {
    await sharp(bytes, { limitInputPixels, failOn: "error", pages: 1 }).raw().toBuffer();
  } catch (error) {
    throw new AppError("INVALID_INPUT", { message: "The image could not be decoded", cause: error });
  }
  return { format: format === "heif" ? "avif" : format, width, height };
}

function mimeOf(format: string): string {
  return `image/${format}`;
}
