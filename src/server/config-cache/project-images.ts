import { z } from "zod";
import { COMPASS_GRAVITIES } from "@/lib/compass";
import { MAX_WATERMARK_OFFSET } from "@/server/image/operations/overlay-tokens";

/**
 * The watermark's placement as an admin saves it (the URL's wm_ values override it per request), and
 * whether every output of the project carries it. The same bounds as the wm_ token.
 */
export const watermarkSettingsSchema = z.object({
  opacity: z.number().min(0.05).max(1),
  gravity: z.enum(COMPASS_GRAVITIES),
  x: z.number().int().min(0).max(MAX_WATERMARK_OFFSET),
  y: z.number().int().min(0).max(MAX_WATERMARK_OFFSET),
  scale: z
    .number()
    .min(0)
    .max(1)
    .refine((scale) => scale === 0 || scale >= 0.05, "0 (its own size) or 0.05–1"),
  always: z.boolean(),
});

export type WatermarkSettings = z.infer<typeof watermarkSettingsSchema>;

/** A bottom-right mark a fifth of the output's width, fully opaque, on the URLs that ask for it. */
export const DEFAULT_WATERMARK_SETTINGS: WatermarkSettings = {
  opacity: 1,
  gravity: "southeast",
  x: 16,
  y: 16,
  scale: 0.2,
  always: false,
};

/** What the image route knows of the watermark: its settings and the SHA-256 of its bytes (read separately). */
export type WatermarkConfig = WatermarkSettings & { sha256: string };

/** Stored settings that no longer parse (a bound tightened since) fall back to the defaults field by field. */
export function readWatermarkSettings(stored: unknown): WatermarkSettings {
  const merged = { ...DEFAULT_WATERMARK_SETTINGS, ...(typeof stored === "object" && stored !== null ? stored : {}) };
  const parsed = watermarkSettingsSchema.safeParse(merged);
  return parsed.success ? parsed.data : DEFAULT_WATERMARK_SETTINGS;
}
