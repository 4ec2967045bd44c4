import type { PaletteColour } from "@optstuff/client";
import { MMCQ } from "@vibrant/quantizer-mmcq";

/** Enough to theme a card or paint a gradient; imgix and Cloudinary answer five to eight. */
export const PALETTE_COLOURS = 6;
/**
 * The quantizer stops splitting at three quarters of the count it is given (its second pass aims at
 * what is left, not at the total): ask for a third more to get the palette's size.
 */
const QUANTIZER_SHARE = 0.75;

/**
 * The image's main colours with their shares of its visible pixels, most common first; empty for a
 * fully transparent image. Median cut (MMCQ) over a small RGBA copy: each box's population is its
 * share, its colour the mean of its pixels at 5 bits a channel (within 4 of the exact mean). Pixels
 * count when they are at least half as opaque as the image's most opaque one: faint edges and shadows
 * are left out, and a translucent image still has its colours.
 */
export function paletteOf(rgba: Uint8Array, colours = PALETTE_COLOURS): PaletteColour[] {
  // The quantizer skips only fully transparent pixels: leave out the faint ones as well.
  const visible = Buffer.from(rgba.subarray(0, rgba.length - (rgba.length % 4)));
  let most = 0;
  for (let alpha = 3; alpha < visible.length; alpha += 4) most = Math.max(most, visible[alpha]!);
  if (most === 0) return [];
  let count = 0;
  for (let alpha = 3; alpha < visible.length; alpha += 4) {
    if (visible[alpha]! * 2 < most) visible[alpha] = 0;
    else count++;
  }
  // Two boxes may average to one colour: one entry with both shares.
  const populations = new Map<string, number>();
  for (const swatch of MMCQ(visible, { colorCount: Math.ceil(colours / QUANTIZER_SHARE) })) {
    if (swatch.population === 0) continue;
    const colour = `#${swatch.rgb.map((channel) => channel.toString(16).padStart(2, "0")).join("")}`;
    populations.set(colour, (populations.get(colour) ?? 0) + swatch.population);
  }
  const palette = [...populations]
    .sort(([, a], [, b]) => b - a)
    .map(([colour, population]) => ({ colour, share: Math.round((population / count) * 1000) / 1000 }));
  if (palette.length === 0) return palette;
  // Rounded one by one the shares may add up to 0.999 or 1.001: the largest takes the difference.
  const rest = palette.slice(1).reduce((sum, { share }) => sum + share, 0);
  palette[0]!.share = Math.round((1 - rest) * 1000) / 1000;
  return palette;
}
