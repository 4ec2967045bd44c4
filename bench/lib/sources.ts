import sharp from "sharp";

/** The three source kinds of bench:image, generated at start so nothing is shipped or downloaded. */
export type SourceKind = "jpeg" | "png" | "gif";

export interface Source {
  kind: SourceKind;
  /** Extension used in the origin's paths (some peers look at it, none relies on it). */
  ext: "jpg" | "png" | "gif";
  contentType: string;
  width: number;
  height: number;
  frames: number;
  body: Buffer;
  description: string;
}

export const SOURCE_KINDS: SourceKind[] = ["jpeg", "png", "gif"];

/** Photographic texture: gaussian noise softened by a blur, so encoders see detail but not pure noise. */
function texture(width: number, height: number, sigma = 40, blur = 1.2) {
  return sharp({
    create: { width, height, channels: 3, background: "#777", noise: { type: "gaussian", mean: 128, sigma } },
  }).blur(blur);
}

/** 4000×3000 (12 MP) photographic JPEG q88, as the benchmark has always used. */
async function makeJpeg(): Promise<Source> {
  const body = await texture(4000, 3000).jpeg({ quality: 88 }).toBuffer();
  return {
    kind: "jpeg",
    ext: "jpg",
    contentType: "image/jpeg",
    width: 4000,
    height: 3000,
    frames: 1,
    body,
    description: "4000×3000 photographic JPEG q88",
  };
}

/**
 * 1600×1250 (2 MP) RGBA PNG: the same texture with a diagonal alpha gradient plus noise in the alpha,
 * so transparency varies pixel by pixel (a flat alpha would let encoders cheat).
 */
async function makePng(): Promise<Source> {
  const width = 1600;
  const height = 1250;
  const rgb = await texture(width, height).raw().toBuffer();
  const alpha = Buffer.alloc(width * height);
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const gradient = ((x / width + y / height) / 2) * 255;
      alpha[y * width + x] = Math.max(0, Math.min(255, Math.round(gradient + ((seed >> 16) % 33) - 16)));
    }
  }
  const body = await sharp(rgb, { raw: { width, height, channels: 3 } })
    .joinChannel(alpha, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();
  return {
    kind: "png",
    ext: "png",
    contentType: "image/png",
    width,
    height,
    frames: 1,
    body,
    description: "1600×1250 RGBA PNG, gradient alpha with noise",
  };
}

/**
 * 20 frames of 960×720, 80 ms each, looping: a textured disc moving over a still textured background,
 * as most animated GIFs change only part of the frame (the encoder makes the rest transparent).
 */
async function makeGif(): Promise<Source> {
  const width = 960;
  const height = 720;
  const frames = 20;
  const background = await texture(width, height, 50, 3).png().toBuffer();
  const mask = Buffer.from('<svg width="240" height="240"><circle cx="120" cy="120" r="118"/></svg>');
  const disc = await texture(240, 240, 60, 1)
    .composite([{ input: mask, blend: "dest-in" }])
    .png()
    .toBuffer();
  const frameBuffers = await Promise.all(
    Array.from({ length: frames }, (_, i) =>
      sharp(background)
        .composite([{ input: disc, left: 20 + i * 34, top: 240 + Math.round(Math.sin(i / 3) * 200) }])
        .png({ compressionLevel: 0 })
        .toBuffer(),
    ),
  );
  const body = await sharp(frameBuffers, { join: { animated: true } })
    .gif({ delay: Array.from({ length: frames }, () => 80), loop: 0 })
    .toBuffer();
  return {
    kind: "gif",
    ext: "gif",
    contentType: "image/gif",
    width,
    height,
    frames,
    body,
    description: `${width}×${height} animated GIF, ${frames} frames`,
  };
}

export async function makeSources(): Promise<Source[]> {
  return [await makeJpeg(), await makePng(), await makeGif()];
}
