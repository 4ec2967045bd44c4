import sharp from "sharp";

/** A photographic-like JPEG (noise defeats the encoder's shortcuts on flat colour). */
export function makeJpeg(width: number, height: number, options: { orientation?: number } = {}): Promise<Buffer> {
  const image = sharp({
    create: { width, height, channels: 3, background: "#4080c0", noise: { type: "gaussian", mean: 120, sigma: 30 } },
  });
  const encoded = image.jpeg({ quality: 85 });
  return options.orientation
    ? encoded.withMetadata({ orientation: options.orientation }).toBuffer()
    : encoded.toBuffer();
}

export function makePng(width: number, height: number, alpha = true): Promise<Buffer> {
  const background = alpha ? { r: 200, g: 30, b: 30, alpha: 0.5 } : { r: 200, g: 30, b: 30, alpha: 1 };
  return sharp({ create: { width, height, channels: alpha ? 4 : 3, background } })
    .png()
    .toBuffer();
}

/** Grain no lossy WebP keeps: its q100 scores under 90, so q_auto:best is out of WebP's reach on it. */
export function makeGrain(width: number, height: number): Promise<Buffer> {
  const noise = { type: "gaussian", mean: 128, sigma: 40 } as const;
  return sharp({ create: { width, height, channels: 3, background: "#808080", noise } })
    .png()
    .toBuffer();
}
