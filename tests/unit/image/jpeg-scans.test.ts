import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { countJpegScans } from "@/server/image/isolation/jpeg-scans";
import { scanBombJpeg } from "../../support/hostile";

/** A photo-like JPEG (noise, so the scans carry data with 0xFF bytes in it), baseline or progressive. */
async function jpeg(options: { progressive: boolean }) {
  return await sharp({
    create: {
      width: 320,
      height: 240,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 128, sigma: 60 },
    },
  })
    .jpeg({ progressive: options.progressive, quality: 90 })
    .toBuffer();
}

describe("countJpegScans", () => {
  it("counts one scan in a baseline JPEG and the encoder's progression in a progressive one", async () => {
    expect(countJpegScans(await jpeg({ progressive: false }), 24)).toBe(1);
    const progressive = countJpegScans(await jpeg({ progressive: true }), 24)!;
    // libjpeg-turbo's (and mozjpeg's) default progression for a colour image is about ten scans.
    expect(progressive).toBeGreaterThan(2);
    expect(progressive).toBeLessThanOrEqual(24);
  });

  it("stops counting as soon as the bound is passed, whatever the file holds", () => {
    const bomb = scanBombJpeg(2048, 28_500);
    expect(countJpegScans(bomb, 24)).toBe(25);
    expect(countJpegScans(scanBombJpeg(2048, 30), 1000)).toBe(31); // the DC scan and 30 AC scans
  });

  it("does not count a thumbnail's scans inside an APP segment", async () => {
    const thumbnail = await sharp({ create: { width: 16, height: 16, channels: 3, background: "#f00" } })
      .jpeg({ progressive: true })
      .toBuffer();
    const main = await jpeg({ progressive: false });
    // APP1 right after SOI, carrying a whole progressive JPEG, as EXIF previews do.
    const app1 = Buffer.concat([
      Buffer.from([0xff, 0xe1, (thumbnail.length + 2) >> 8, (thumbnail.length + 2) & 0xff]),
      thumbnail,
    ]);
    const withPreview = Buffer.concat([main.subarray(0, 2), app1, main.subarray(2)]);
    expect(countJpegScans(withPreview, 24)).toBe(1);
    // The file still decodes: the segment is well formed.
    expect((await sharp(withPreview).metadata()).width).toBe(320);
  });

  it("answers null for what is not a JPEG's structure, and stops at a truncated end", async () => {
    expect(countJpegScans(Buffer.from("GIF89a"), 24)).toBeNull();
    expect(countJpegScans(Buffer.from([0xff, 0xd8, 0x00, 0x00, 0x00]), 24)).toBeNull();
    expect(countJpegScans(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01]), 24)).toBeNull(); // length < 2
    const whole = await jpeg({ progressive: true });
    const scans = countJpegScans(whole, 24)!;
    const truncated = countJpegScans(whole.subarray(0, Math.floor(whole.length / 2)), 24)!;
    expect(truncated).toBeGreaterThanOrEqual(1);
    expect(truncated).toBeLessThanOrEqual(scans);
  });
});
