/** Regenerates the demo images served as `local/...` on the embedded default: `npx tsx scripts/make-demo-images.ts`. */
import { mkdirSync } from "node:fs";
import sharp from "sharp";

const landscape = `<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="1067">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#1d3b6e"/><stop offset="0.6" stop-color="#f2a65a"/><stop offset="1" stop-color="#f7d08a"/></linearGradient>
    <linearGradient id="hill" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2f5d3a"/><stop offset="1" stop-color="#10261a"/></linearGradient>
  </defs>
  <rect width="1600" height="1067" fill="url(#sky)"/>
  <circle cx="1150" cy="560" r="110" fill="#ffe8a3" opacity="0.9"/>
  <path d="M0 720 Q 300 560 620 700 T 1200 650 T 1600 700 V1067 H0Z" fill="#3d6b4a" opacity="0.85"/>
  <path d="M0 840 Q 400 700 800 830 T 1600 800 V1067 H0Z" fill="url(#hill)"/>
  <text x="60" y="1010" font-family="sans-serif" font-size="54" fill="#ffffff" opacity="0.85">OptStuff demo</text>
</svg>`;

const logo = `<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512">
  <circle cx="256" cy="256" r="220" fill="#6d4aff" opacity="0.85"/>
  <rect x="156" y="156" width="200" height="200" rx="36" fill="#ffffff" opacity="0.9"/>
</svg>`;

async function main(): Promise<void> {
  mkdirSync("demo", { recursive: true });
  // Grain makes the JPEG behave like a photograph for the encoder (flat gradients compress unrealistically).
  const noise = await sharp({
    create: {
      width: 1600,
      height: 1067,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 128, sigma: 18 },
    },
  })
    .raw()
    .toBuffer();
  const grain = await sharp(noise, { raw: { width: 1600, height: 1067, channels: 3 } })
    .png()
    .toBuffer();
  await sharp(Buffer.from(landscape))
    .composite([{ input: grain, blend: "soft-light" }])
    .jpeg({ quality: 82, mozjpeg: true })
    .toFile("demo/photo.jpg");
  await sharp(Buffer.from(logo)).png().toFile("demo/logo.png");
  await sharp(Buffer.from(logo)).toFile("demo/logo.webp");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
