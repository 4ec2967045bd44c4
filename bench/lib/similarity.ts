import sharp from "sharp";

/**
 * PSNR and SSIM of `candidate` against `reference` (same dimensions), on luma, as the benchmarks use
 * them to show that faster output is not worse output. SSIM is the mean over 8×8 windows with the
 * usual constants (Wang et al. 2004), without the Gaussian weighting: close enough to rank encoders.
 */
export async function similarity(reference: Buffer, candidate: Buffer): Promise<{ psnr: number; ssim: number }> {
  const a = await luma(reference);
  const b = await luma(candidate);
  if (a.width !== b.width || a.height !== b.height)
    throw new Error(`sizes differ: ${a.width}×${a.height} vs ${b.width}×${b.height}`);
  let squared = 0;
  for (let i = 0; i < a.data.length; i++) squared += (a.data[i]! - b.data[i]!) ** 2;
  const mse = squared / a.data.length;
  const psnr = mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse);
  return { psnr, ssim: windowedSsim(a, b) };
}

interface Plane {
  data: Uint8Array;
  width: number;
  height: number;
}

async function luma(image: Buffer): Promise<Plane> {
  const { data, info } = await sharp(image)
    .flatten({ background: "#ffffff" })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function windowedSsim(a: Plane, b: Plane): number {
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  let total = 0;
  let windows = 0;
  for (let y = 0; y + 8 <= a.height; y += 8) {
    for (let x = 0; x + 8 <= a.width; x += 8) {
      let sa = 0,
        sb = 0,
        saa = 0,
        sbb = 0,
        sab = 0;
      for (let dy = 0; dy < 8; dy++) {
        for (let dx = 0; dx < 8; dx++) {
          const i = (y + dy) * a.width + x + dx;
          const va = a.data[i]!;
          const vb = b.data[i]!;
          sa += va;
          sb += vb;
          saa += va * va;
          sbb += vb * vb;
          sab += va * vb;
        }
      }
      const n = 64;
      const ma = sa / n,
        mb = sb / n;
      const va = saa / n - ma * ma,
        vb = sbb / n - mb * mb,
        cov = sab / n - ma * mb;
      total += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
      windows++;
    }
  }
  return total / windows;
}
