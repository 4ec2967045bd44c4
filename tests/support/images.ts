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
