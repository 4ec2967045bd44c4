import sharp from "sharp";

/** Images for the pipeline tests, generated with sharp (no binary fixtures) and decoded with sharp. */

export type Rgb = [number, number, number];

export function noisyJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({
    create: { width, height, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 40 } },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
}

export function solid(width: number, height: number, colour: Rgb | [number, number, number, number]) {
  const [r, g, b, alpha = 1] = colour;
  return sharp({ create: { width, height, channels: colour.length === 4 ? 4 : 3, background: { r, g, b, alpha } } });
}

/** Vertical stripes of equal width, left to right: gravity and crops show up as the colour kept. */
export function stripes(width: number, height: number, colours: Rgb[], horizontal = false) {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const band = Math.min(colours.length - 1, Math.floor((horizontal ? y / height : x / width) * colours.length));
      data.set(colours[band]!, (y * width + x) * 3);
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } });
}

/** An animated GIF whose frames are solid colours, each `delayMs` long. */
export async function animatedGif(width: number, height: number, colours: Rgb[], delayMs = 100): Promise<Buffer> {
  const frames = await Promise.all(colours.map((c) => solid(width, height, c).png().toBuffer()));
  return sharp(frames, { join: { animated: true } })
    .gif({ delay: colours.map(() => delayMs), loop: 0 })
    .toBuffer();
}

/** RGBA of one pixel (frame 0 for animations). */
export async function pixel(image: Buffer, x: number, y: number): Promise<[number, number, number, number]> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 4;
  return [data[at]!, data[at + 1]!, data[at + 2]!, data[at + 3]!];
}

export function near(actual: readonly number[], expected: readonly number[], tolerance = 12): boolean {
  return expected.every((value, i) => Math.abs((actual[i] ?? NaN) - value) <= tolerance);
}
