import { watermarkSettingsSchema, type WatermarkSettings } from "@/lib/schemas/watermark";

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
