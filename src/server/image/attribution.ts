import exifReader from "exif-reader";
import type { Sharp } from "sharp";

/** Who made the image and who owns it: what stays when every other piece of metadata is stripped. */
export interface Attribution {
  Copyright?: string;
  Artist?: string;
}

/** Longer values are cut: credit lines are short, and the EXIF block must stay small. */
const MAX_LENGTH = 512;

/** What the output's metadata depends on in the source's EXIF. */
export interface SourceExif {
  attribution?: Attribution;
  /**
   * The EXIF block carries a preview image (IFD1, the camera's thumbnail of the whole, unedited shot).
   * libvips keeps it whenever a pipeline that decoded the source writes EXIF, even fields of its own.
   */
  preview: boolean;
}

/**
 * The source's EXIF Copyright and Artist, if it has them, and whether it embeds a preview. A damaged
 * EXIF block yields neither rather than failing the image: the pixels do not depend on it.
 */
export function readSourceExif(exif: Buffer | undefined): SourceExif {
  if (!exif) return { preview: false };
  let parsed;
  try {
    parsed = exifReader(exif);
  } catch {
    return { preview: false };
  }
  const attribution = readAttribution(parsed.Image as Record<string, unknown> | undefined);
  return { ...(attribution ? { attribution } : {}), preview: parsed.Thumbnail !== undefined };
}

function readAttribution(tags: Record<string, unknown> | undefined): Attribution | undefined {
  const attribution: Attribution = {};
  for (const name of ["Copyright", "Artist"] as const) {
    const value = clean(tags?.[name]);
    if (value) attribution[name] = value;
  }
  return Object.keys(attribution).length > 0 ? attribution : undefined;
}

/** What an output carries, and where from (docs/url-format.md, Metadata and colour). */
export interface OutputMetadata {
  /** The source's credit line: the output's only EXIF by default. */
  attribution?: Attribution;
  /** meta_keep: all of the source's metadata; meta_strip: none. */
  mode?: "keep" | "strip";
  /** cs_keep on a source with an RGB profile: its pixels stay in that profile, and the output is tagged with it. */
  keepProfile?: boolean;
}

/**
 * Sets the output's metadata. By default the credit line is the only EXIF (sharp strips the rest, GPS
 * included). meta_keep keeps everything the source has: sharp's keepMetadata would also keep its colour
 * profile and leave the pixels in it, so the output is converted to sRGB and tagged so instead. Only a
 * pipeline that decodes the source has its metadata to keep: raw pixels carry none. cs_keep keeps the
 * source's profile the same way: sharp then skips the conversion to sRGB it makes as it decodes.
 */
export function withMetadata(image: Sharp, metadata: OutputMetadata): Sharp {
  if (metadata.mode === "keep") {
    return metadata.keepProfile ? image.keepMetadata() : image.keepMetadata().withIccProfile("srgb");
  }
  const profiled = metadata.keepProfile ? image.keepIccProfile() : image;
  if (metadata.mode === "strip") return profiled;
  return metadata.attribution ? profiled.withExif({ IFD0: { ...metadata.attribution } }) : profiled;
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
