import { z } from "zod";
import { COMPASS_GRAVITIES } from "@/lib/compass";

/** How far a watermark may sit from its edge (the wm_ token's bound too): beyond it any sensible mark is off a large output. */
export const MAX_WATERMARK_OFFSET = 1000;

const number = (message: string) => z.number({ error: message });
const offset = number(`A whole number of pixels from 0 to ${MAX_WATERMARK_OFFSET}`)
  .int(`A whole number of pixels from 0 to ${MAX_WATERMARK_OFFSET}`)
  .min(0, `A whole number of pixels from 0 to ${MAX_WATERMARK_OFFSET}`)
  .max(MAX_WATERMARK_OFFSET, `A whole number of pixels from 0 to ${MAX_WATERMARK_OFFSET}`);

/**
 * The watermark's placement as an admin saves it (the URL's wm_ values override it per request), and
 * whether every output of the project carries it. The same bounds as the wm_ token.
 */
export const watermarkSettingsSchema = z.object({
  opacity: number("From 0.05 to 1").min(0.05, "From 0.05 to 1").max(1, "From 0.05 to 1"),
  gravity: z.enum(COMPASS_GRAVITIES),
  x: offset,
  y: offset,
  scale: number("0 (its own size) or 0.05–1")
    .min(0, "0 (its own size) or 0.05–1")
    .max(1, "0 (its own size) or 0.05–1")
    .refine((scale) => scale === 0 || scale >= 0.05, "0 (its own size) or 0.05–1"),
  always: z.boolean(),
});

export type WatermarkSettings = z.infer<typeof watermarkSettingsSchema>;
