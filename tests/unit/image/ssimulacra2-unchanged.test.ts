import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { ssimulacra2, ssimulacra2Against, type RawImage } from "@/server/image/quality/ssimulacra2";

const FIXTURES = path.resolve("tests/fixtures/ssimulacra2");

/** mulberry32: the same pseudo-random pixels on every run and every machine. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const byte = (v: number) => Math.min(255, Math.max(0, Math.round(v)));

/** A photograph's stand-in: gradients, a texture that differs per channel, and noise. */
function photo(width: number, height: number, channels: 3 | 4, seed: number): RawImage {
  const next = random(seed);
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * channels;
      for (let c = 0; c < 3; c++) {
        const texture = 60 * Math.sin(x * 0.21 + c) * Math.cos(y * 0.17 - c);
        data[p + c] = byte(128 + texture + 80 * (x / width - 0.5) + 40 * (next() - 0.5));
      }
      if (channels === 4) data[p + 3] = byte(255 * (y / height) + 30 * (next() - 0.5));
    }
  }
  return { data, width, height, channels };
}

/** A copy of `image` with each byte replaced by `f(value, x, y, channel)`. */
function distorted(image: RawImage, f: (v: number, x: number, y: number, c: number) => number): RawImage {
  const { width, channels } = image;
  const data = image.data.map((v, i) => {
    const pixel = Math.floor(i / channels);
    return byte(f(v, pixel % width, Math.floor(pixel / width), i % channels));
  });
  return { ...image, data };
}

function at(image: RawImage, x: number, y: number, c: number): number {
  const cx = Math.min(image.width - 1, Math.max(0, x));
  const cy = Math.min(image.height - 1, Math.max(0, y));
  return image.data[(cy * image.width + cx) * image.channels + c]!;
}

function syntheticPairs(): [string, RawImage, RawImage][] {
  const small = photo(96, 64, 3, 1);
  const noise = random(2);
  const odd = photo(67, 45, 3, 3);
  const blocks = photo(200, 150, 3, 4);
  const sixScales = photo(264, 264, 3, 5);
  const tiny = photo(8, 8, 3, 6);
  const alpha = photo(41, 33, 4, 7);
  const alphaNoise = random(8);
  return [
    ["96×64, noise", small, distorted(small, (v) => v + 24 * (noise() - 0.5))],
    [
      "96×64, 3×3 box blur",
      small,
      distorted(small, (_, x, y, c) => {
        let sum = 0;
        for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) sum += at(small, x + dx, y + dy, c);
        return sum / 9;
      }),
    ],
    ["67×45 (three scales), posterised", odd, distorted(odd, (v) => Math.round(v / 32) * 32)],
    [
      "200×150, half 8×8 blocks",
      blocks,
      distorted(blocks, (v, x, y, c) => {
        let sum = 0;
        const [x0, y0] = [x - (x % 8), y - (y % 8)];
        for (let dy = 0; dy < 8; dy++) for (let dx = 0; dx < 8; dx++) sum += at(blocks, x0 + dx, y0 + dy, c);
        return 0.5 * v + (0.5 * sum) / 64;
      }),
    ],
    [
      "264×264 (six scales), red shifted",
      sixScales,
      distorted(sixScales, (v, x, y, c) => (c === 0 ? at(sixScales, x - 1, y, 0) : v)),
    ],
    ["8×8, one pixel", tiny, distorted(tiny, (v, x, y) => (x === 3 && y === 4 ? 255 - v : v))],
    [
      "41×33 with alpha, alpha quantised and colour noise",
      alpha,
      distorted(alpha, (v, _x, _y, c) => (c === 3 ? Math.round(v / 64) * 64 : v + 16 * (alphaNoise() - 0.5))),
    ],
  ];
}

async function decoded(input: string | Buffer): Promise<RawImage> {
  const { data, info } = await sharp(typeof input === "string" ? path.join(FIXTURES, input) : input)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: info.channels as 3 | 4 };
}

async function fixturePairs(): Promise<[string, RawImage, RawImage][]> {
  const source = await decoded("source.png");
  const files = ["q20.jpg", "q45.jpg", "q70.jpg", "q90.jpg"];
  const encodes = await Promise.all(files.map((file) => decoded(file)));
  return files.map((file, i) => [`source.png, ${file}`, source, encodes[i]!]);
}

/**
 * The scores the implementation gave these pairs before it was made faster: this file, run against
 * commit eeb539b's src/server/image/quality, printed them. Any rewrite must stay within 0.01 of each.
 */
const BEFORE: Record<string, number> = {
  "96×64, noise": 64.46304417246229,
  "96×64, 3×3 box blur": 35.730979272229206,
  "67×45 (three scales), posterised": -8.31379074567991,
  "200×150, half 8×8 blocks": 37.91143571586595,
  "264×264 (six scales), red shifted": 71.4134913970487,
  "8×8, one pixel": 85.86262706957876,
  "41×33 with alpha, alpha quantised and colour noise": 49.97851229786531,
  "source.png, q20.jpg": 57.189391462457436,
  "source.png, q45.jpg": 68.65280171804824,
  "source.png, q70.jpg": 79.47466737496683,
  "source.png, q90.jpg": 91.0529873028434,
};

describe("SSIMULACRA 2 scores as it did before it was made faster", () => {
  it("gives every pair its earlier score, within 0.01", async () => {
    const pairs = [...syntheticPairs(), ...(await fixturePairs())];
    expect(pairs.map(([name]) => name).sort()).toEqual(Object.keys(BEFORE).sort());
    for (const [name, original, candidate] of pairs) {
      expect(Math.abs(ssimulacra2(original, candidate) - BEFORE[name]!), name).toBeLessThanOrEqual(0.01);
    }
  });

  it("gives each candidate the same score from one prepared original as from a fresh one", async () => {
    // A scorer reuses its planes from one comparison to the next (and, with alpha, from one
    // background to the other): nothing one leaves behind may reach the next.
    const fixtures = await fixturePairs();
    const withAlpha = syntheticPairs().filter(([, original]) => original.channels === 4);
    for (const pairs of [fixtures, withAlpha]) {
      const original = pairs[0]![1];
      const candidates = pairs.map(([, , candidate]) => candidate);
      const against = ssimulacra2Against(original);
      for (const candidate of [...candidates, original, ...candidates.reverse()]) {
        expect(against(candidate)).toBe(ssimulacra2(original, candidate));
      }
    }
  });

  it("gives the same scores from scorers held at once, of one size and of several", async () => {
    // Every scorer of one size shares its working planes; a search holds its scorer across encodes
    // while others are made, used and replaced.
    const fixtures = await fixturePairs();
    const source = fixtures[0]![1];
    const [q20, q45, q70, q90] = fixtures.map(([, , candidate]) => candidate) as [
      RawImage,
      RawImage,
      RawImage,
      RawImage,
    ];
    const alone = [q20, q45, q70, q90].map((candidate) => ssimulacra2(source, candidate));
    const againstSource = ssimulacra2Against(source);
    const againstQ90 = ssimulacra2Against(q90);
    const small = syntheticPairs().find(([name]) => name.startsWith("264×264"))!;
    const againstSmall = ssimulacra2Against(small[1]);
    const scores = [q20, q45, q70, q90].map((candidate) => {
      againstQ90(q20);
      againstSmall(small[2]);
      return againstSource(candidate);
    });
    expect(scores).toEqual(alone);
    expect(againstQ90(q45)).toBe(ssimulacra2(q90, q45));
    expect(againstSmall(small[2])).toBe(ssimulacra2(small[1], small[2]));
  });
});
