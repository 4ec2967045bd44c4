import exifReader from "exif-reader";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import piexif from "piexifjs";
import { readSourceExif } from "@/server/image/attribution";
import { configureSharp, transformImage } from "@/server/image/engine";

const CHROME = "image/avif,image/webp,*/*";

/** A camera JPEG: credit line, camera make, GPS position, and an XMP packet. */
let camera: Buffer;
beforeAll(async () => {
  configureSharp();
  camera = await sharp({ create: { width: 320, height: 200, channels: 3, background: "#6a8caf" } })
    .composite([
      { input: { create: { width: 160, height: 100, channels: 3, background: "#d2691e" } }, left: 40, top: 30 },
    ])
    .jpeg({ quality: 90 })
    .withExif({
      IFD0: { Copyright: "Copyright 2026 Jane Doe", Artist: "Jane Doe", Make: "Canon", Model: "EOS R5" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "48/1 51/1 2400/100",
        GPSLongitudeRef: "E",
        GPSLongitude: "2/1 21/1 0/1",
      },
    })
    .withXmp(
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>',
    )
    .toBuffer();
});

const transform = (segment: string, input = camera, accept: string | null = CHROME) =>
  transformImage(input, parseOperations(segment), { accept }, DEFAULT_TRANSFORM_LIMITS);

/** An output's metadata as sharp reads it, with its EXIF parsed (undefined when it carries none). */
async function outputOf(segment: string, input = camera) {
  const result = await transform(segment, input);
  const metadata = await sharp(result.body).metadata();
  return { result, metadata, exif: metadata.exif && exifReader(metadata.exif) };
}

describe("metadata in outputs", () => {
  it("the source carries what a camera writes (the test's premise)", async () => {
    const metadata = await sharp(camera).metadata();
    const exif = exifReader(metadata.exif!);
    expect(exif.Image?.Make).toBe("Canon");
    expect(exif.GPSInfo?.GPSLatitudeRef).toBe("N");
    expect(metadata.xmp).toBeDefined();
  });

  it.each([
    "w_200,f_jpg",
    "w_200,f_webp",
    "w_200,f_avif",
    "w_200,f_png",
    "w_200,f_webp,q_auto",
    "w_200,f_best",
    "w_200,f_jpg,maxbytes_2000",
  ])("%s keeps the copyright and artist, and strips the camera, the GPS position and the XMP", async (segment) => {
    const { metadata, exif } = await outputOf(segment);
    expect(exif?.Image?.Copyright, segment).toBe("Copyright 2026 Jane Doe");
    expect(exif?.Image?.Artist).toBe("Jane Doe");
    expect(exif?.Image?.Make).toBeUndefined();
    expect(exif?.Image?.Model).toBeUndefined();
    expect(exif?.GPSInfo).toBeUndefined();
    expect(metadata.xmp).toBeUndefined();
    expect(metadata.icc).toBeUndefined();
  });

  it("writes no EXIF at all for a source without a credit line", async () => {
    const plain = await sharp(camera).jpeg().toBuffer();
    expect((await sharp(plain).metadata()).exif).toBeUndefined();
    expect((await sharp((await transform("w_100,f_webp", plain)).body).metadata()).exif).toBeUndefined();
  });

  it("reads a damaged EXIF block as no credit line, and cleans control characters out of one", async () => {
    expect(readSourceExif(Buffer.from("Exif\0\0garbage"))).toEqual({ preview: false });
    expect(readSourceExif(undefined)).toEqual({ preview: false });
    const odd = await sharp(camera)
      .withExif({ IFD0: { Copyright: "Jane\u0007Doe\u001b[31m", Artist: "   " } })
      .jpeg()
      .toBuffer();
    expect(readSourceExif((await sharp(odd).metadata()).exif).attribution).toEqual({ Copyright: "Jane Doe [31m" });
  });

  it("converts a Display P3 or CMYK source to sRGB from its embedded profile, and tags nothing", async () => {
    const srgb = { r: 200, g: 60, b: 40 };
    const flat = () => sharp({ create: { width: 64, height: 64, channels: 3, background: srgb } });
    const p3 = await flat().withIccProfile("p3").jpeg({ quality: 100 }).toBuffer();
    // The premise: the file stores P3 numbers, which read as sRGB would be another colour.
    const stored = await sharp(p3).keepIccProfile().raw().toBuffer();
    expect(Math.abs(stored[0]! - srgb.r)).toBeGreaterThan(8);
    const cmyk = await flat().toColourspace("cmyk").withIccProfile("cmyk").jpeg({ quality: 100 }).toBuffer();
    for (const [source, tolerance] of [
      [p3, 2],
      [cmyk, 14],
    ] as const) {
      for (const segment of ["w_32,f_png", "w_32,f_jpg", "w_32,f_webp,q_auto"]) {
        const out = await transform(segment, source, null);
        const metadata = await sharp(out.body).metadata();
        expect(metadata.icc, segment).toBeUndefined();
        expect(metadata.space).toBe("srgb");
        const [r, g, b] = await sharp(out.body).raw().toBuffer();
        // CMYK's round trip through the print gamut loses a little more; lossy formats add their own.
        const slack = segment.includes("q_auto") ? 6 : 0;
        expect(
          Math.max(Math.abs(r! - srgb.r), Math.abs(g! - srgb.g), Math.abs(b! - srgb.b)),
          segment,
        ).toBeLessThanOrEqual(tolerance + slack);
      }
    }
  });

  it.each([
    "w_200,f_jpg,meta_keep",
    "w_200,f_webp,meta_keep",
    "w_200,f_avif,meta_keep",
    "w_200,f_png,meta_keep",
    "w_200,f_webp,q_auto,meta_keep",
    "w_200,f_best,meta_keep",
  ])("%s keeps the camera, the GPS position and the XMP, in sRGB tagged as such", async (segment) => {
    const { result, metadata, exif } = await outputOf(segment);
    expect(exif?.Image?.Make, segment).toBe("Canon");
    expect(exif?.Image?.Copyright).toBe("Copyright 2026 Jane Doe");
    expect(exif?.GPSInfo?.GPSLatitudeRef).toBe("N");
    expect(metadata.xmp, segment).toBeDefined();
    expect(metadata.space).toBe("srgb");
    expect(metadata.icc, segment).toBeDefined();
    if (segment.includes("q_auto") || segment.includes("f_best")) expect(result.measured?.score).toBeGreaterThan(0);
  });

  it("meta_keep turns the pixels upright and says so: the Orientation tag no longer rotates them", async () => {
    const tall = await sharp({ create: { width: 120, height: 60, channels: 3, background: "#808080" } })
      .composite([
        { input: { create: { width: 60, height: 60, channels: 3, background: "#ff0000" } }, left: 0, top: 0 },
      ])
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExifMerge({ IFD0: { Make: "Canon" } })
      .toBuffer();
    expect((await sharp(tall).metadata()).orientation).toBe(6);
    for (const segment of ["f_jpg,meta_keep", "f_webp,q_auto,meta_keep"]) {
      const out = await transform(segment, tall, null);
      const metadata = await sharp(out.body).metadata();
      // Upright: a 90° turn makes the 120×60 landscape a 60×120 portrait.
      expect([metadata.width, metadata.height], segment).toEqual([60, 120]);
      expect(metadata.orientation ?? 1, segment).toBe(1);
      expect(exifReader(metadata.exif!).Image?.Make).toBe("Canon");
    }
  });

  it("meta_keep converts a Display P3 source to sRGB and tags it sRGB, not P3", async () => {
    const srgb = { r: 200, g: 60, b: 40 };
    const p3 = await sharp({ create: { width: 64, height: 64, channels: 3, background: srgb } })
      .withIccProfile("p3")
      .jpeg({ quality: 100 })
      .toBuffer();
    const out = await transform("w_32,f_png,meta_keep", p3, null);
    // The profiles' descriptions, in UTF-16 big-endian as ICC v4 writes them.
    const utf16 = (text: string) => Buffer.from(text, "utf16le").swap16();
    const icc = (await sharp(out.body).metadata()).icc!;
    expect(icc.includes(utf16("sRGB"))).toBe(true);
    expect(icc.includes(utf16("P3"))).toBe(false);
    const [r, g, b] = await sharp(out.body).raw().toBuffer();
    expect(Math.max(Math.abs(r! - srgb.r), Math.abs(g! - srgb.g), Math.abs(b! - srgb.b))).toBeLessThanOrEqual(2);
  });

  it("meta_strip writes no metadata at all, not even the credit line", async () => {
    for (const segment of ["w_200,f_jpg,meta_strip", "w_200,f_webp,q_auto,meta_strip"]) {
      const metadata = await sharp((await transform(segment)).body).metadata();
      expect(metadata.exif, segment).toBeUndefined();
      expect(metadata.xmp, segment).toBeUndefined();
      expect(metadata.icc, segment).toBeUndefined();
    }
  });

  it("refuses meta_keep and cs_keep with pixelate_ or placeholder, and unknown meta_ and cs_ values", () => {
    for (const segment of ["pixelate_8,meta_keep", "pixelate_8,cs_keep", "cs_keep,pixelate_8,meta_strip"]) {
      expect(() => parseOperations(segment), segment).toThrow(
        /meta_keep and cs_keep cannot be combined with pixelate_/,
      );
    }
    expect(() => parseOperations("placeholder,cs_keep")).toThrow(/cs_keep and placeholder/);
    expect(() => parseOperations("meta_all")).toThrow(/meta_\{keep\|strip\}/);
    expect(() => parseOperations("cs_p3")).toThrow(/cs_\{srgb\|keep\}/);
  });

  describe("a camera JPEG that embeds a preview of the whole shot (EXIF IFD1)", () => {
    /** A blue photo whose EXIF holds a red 80×60 preview, a credit line and the camera. */
    let previewed: Buffer;
    beforeAll(async () => {
      const photo = await sharp({ create: { width: 400, height: 300, channels: 3, background: "#3366cc" } })
        .jpeg()
        .toBuffer();
      const preview = await sharp({ create: { width: 80, height: 60, channels: 3, background: "#ff0000" } })
        .jpeg()
        .toBuffer();
      const exif = piexif.dump({
        "0th": { [piexif.ImageIFD.Make]: "Canon", [piexif.ImageIFD.Copyright]: "Jane Doe" },
        "1st": { [piexif.ImageIFD.JPEGInterchangeFormat]: 0, [piexif.ImageIFD.JPEGInterchangeFormatLength]: 0 },
        thumbnail: preview.toString("binary"),
      });
      previewed = Buffer.from(piexif.insert(exif, photo.toString("binary")), "binary");
      // The premise: the preview is there, and sharp reads the block that holds it.
      expect(readSourceExif((await sharp(previewed).metadata()).exif)).toEqual({
        attribution: { Copyright: "Jane Doe" },
        preview: true,
      });
    });

    const carriesPreview = (exif: Buffer | undefined) =>
      exif !== undefined &&
      (exifReader(exif).Thumbnail !== undefined || exif.includes(Buffer.from([0xff, 0xd8, 0xff])));

    it.each([
      "w_200,f_jpg",
      "w_200,f_webp",
      "w_200,f_avif",
      "w_200,f_png",
      "w_200,f_webp,q_auto",
      "w_200,f_best",
      "w_200,f_jpg,maxbytes_2000",
      "c_0_0_100_100,f_jpg",
    ])("%s keeps the credit line and never the preview", async (segment) => {
      const { metadata, exif } = await outputOf(segment, previewed);
      expect(exif?.Image?.Copyright, segment).toBe("Jane Doe");
      expect(exif?.Image?.Make, segment).toBeUndefined();
      expect(carriesPreview(metadata.exif), segment).toBe(false);
    });

    it("cs_keep on a Display P3 photo keeps the profile, and neither the preview nor the credit line", async () => {
      // A pipeline that keeps the profile decodes the source, which would carry the preview along.
      const photo = await sharp({ create: { width: 400, height: 300, channels: 3, background: "#3366cc" } })
        .withIccProfile("p3")
        .jpeg()
        .toBuffer();
      const exif = piexif.load(previewed.toString("binary"));
      const p3 = Buffer.from(piexif.insert(piexif.dump(exif), photo.toString("binary")), "binary");
      expect((await sharp(p3).metadata()).hasProfile).toBe(true);
      expect(readSourceExif((await sharp(p3).metadata()).exif).preview).toBe(true);
      for (const segment of ["w_200,f_jpg,cs_keep", "w_200,f_webp,q_auto,cs_keep"]) {
        const { metadata } = await outputOf(segment, p3);
        expect(metadata.hasProfile, segment).toBe(true);
        expect(metadata.exif, segment).toBeUndefined();
      }
    });

    it("meta_keep keeps it, with everything else the file carries (documented)", async () => {
      const metadata = await sharp((await transform("w_200,f_jpg,meta_keep", previewed)).body).metadata();
      expect(carriesPreview(metadata.exif)).toBe(true);
    });
  });

  it("refuses meta_keep with placeholder", () => {
    expect(() => parseOperations("placeholder,meta_keep")).toThrow(/meta_keep and placeholder cannot be combined/);
  });
});
