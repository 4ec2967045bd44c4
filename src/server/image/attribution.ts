import exifReader from "exif-reader";
import type { Sharp } from "sharp";

/** Who made the image and who owns it: what stays when every other piece of metadata is stripped. */
export interface Attribution {
  Copyright?: string;
  Artist?: string;
}

/** Longer values are cut: credit lines are short, and the EXIF block must stay small. */
const MAX_LENGTH = 512;

/**
 * The source's EXIF Copyright and Artist, if it has them. A damaged EXIF block yields none rather than
 * failing the image: the pixels do not depend on it.
 */
export function readAttribution(exif: Buffer | undefined): Attribution | undefined {
  if (!exif) return undefined;
  let tags;
  try {
    tags = exifReader(exif).Image;
  } catch {
    return undefined;
  }
  const attribution: Attribution = {};
  for (const name of ["Copyright", "Artist"] as const) {
    const value = clean(tags?.[name]);
    if (value) attribution[name] = value;
  }
  return Object.keys(attribution).length > 0 ? attribution : undefined;
}

/** Written as the output's only EXIF (sharp strips the rest, GPS included, by default). */
export function withAttribution(image: Sharp, attribution: Attribution | undefined): Sharp {
  return attribution ? image.withExif({ IFD0: { ...attribution } }) : image;
}

function clean(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  // NULs end an EXIF ASCII value; control characters have no place in a credit line.
  const text = [...value]
    .map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? " " : c))
    .join("")
    .trim();
  return text === "" ? undefined : text.slice(0, MAX_LENGTH);
}
