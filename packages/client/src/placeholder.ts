import { thumbHashToDataURL } from "thumbhash";
import { base64 } from "./base64.js";
import { signUrl, type SigningKeys } from "./sign.js";

/** What OptStuff's `info` answers about a source. */
export interface ImageInfo {
  /** After EXIF orientation, one frame. */
  width: number;
  height: number;
  format: string;
  frames: number;
  animated: boolean;
  alpha: boolean;
  bytes: number;
  /** `#rrggbb`. */
  dominant: string;
  /** The main colours (up to 6), most common first, with their shares of the visible pixels. */
  palette: PaletteColour[];
  /** Base64; placeholder() makes it a data URL. */
  thumbhash: string;
  blurhash: string;
  /** With operations beside `info`: what they make of the source, as the same URL without `info` would. */
  output?: OutputInfo;
  /** With g_face or g_auto beside `info`: the faces found, most confident first (none: an empty list). */
  faces?: FaceBox[];
}

/** A face found, in the source's pixels after EXIF orientation (as c_ and fp_ count them). */
export interface FaceBox {
  left: number;
  top: number;
  width: number;
  height: number;
  /** The detector's confidence, 0–1 with two decimals. */
  score: number;
}

/** One of the image's main colours. */
export interface PaletteColour {
  /** `#rrggbb`. */
  colour: string;
  /**
   * Of the visible pixels (at least half as opaque as the most opaque), 0–1 with three decimals; a
   * palette's shares add up to 1.
   */
  share: number;
}

/** One output: its format, size and bytes, and for q_auto and f_best the quality chosen and its score. */
export interface OutputInfo {
  format: string;
  width: number;
  height: number;
  bytes: number;
  /** SSIMULACRA 2, 100 for a lossless answer. */
  quality?: number;
  score?: number;
}

export interface InfoInput extends SigningKeys {
  source: string;
  /** Also look for faces (`info,g_face`): the answer then lists them. */
  faces?: boolean;
  /** Injected for tests or runtimes with their own fetch. */
  fetch?: typeof fetch;
}

/** Size, format, dominant colour and placeholders of a source. Server side: it signs with the secret. */
export async function info(input: InfoInput): Promise<ImageInfo> {
  const url = await signUrl({ ...input, operations: input.faces ? { info: true, gravity: "face" } : { info: true } });
  const response = await (input.fetch ?? fetch)(url);
  if (!response.ok) throw new Error(`info for ${input.source}: OptStuff answered ${response.status}`);
  const described = (await response.json()) as Omit<ImageInfo, "palette"> & { palette?: ImageInfo["palette"] };
  // An answer a CDN cached before palettes existed has none: an empty one, so paletteCss writes nothing.
  return { ...described, palette: described.palette ?? [] };
}

/**
 * A PNG `data:` URL painted from a ThumbHash (info().thumbhash): a few hundred bytes to inline as
 * next/image's `blurDataURL`. Pure computation, so it runs in the browser as well.
 */
export function placeholder(thumbhash: string): string {
  const binary = atob(thumbhash);
  return thumbHashToDataURL(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/**
 * CSS declarations for a palette (info().palette): `--palette-1` … `--palette-N` by share and a
 * `background-color` of the first, to paint a placeholder box or theme what sits around the image.
 * `name` changes the properties' prefix (`--{name}-1`).
 */
export function paletteCss(palette: readonly PaletteColour[], name = "palette"): string {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`paletteCss: "${name}" is not a lowercase CSS name`);
  const colours = palette.map(({ colour }) => {
    if (!/^#[0-9a-f]{6}$/i.test(colour)) throw new Error(`paletteCss: "${colour}" is not a #rrggbb colour`);
    return colour;
  });
  const properties = colours.map((colour, index) => `--${name}-${index + 1}: ${colour};`);
  return [...properties, ...(colours.length > 0 ? [`background-color: var(--${name}-1);`] : [])].join(" ");
}

export interface BlurPlaceholderInput extends SigningKeys {
  source: string;
  /** Default webp: the smallest data URL every current browser shows. */
  format?: "webp" | "png" | "jpeg";
  /** Injected for tests or runtimes with their own fetch. */
  fetch?: typeof fetch;
}

/**
 * A `data:` URL of the image's placeholder (the server's tiny blurred still, ≤ 32 px): for next/image's
 * `blurDataURL` or a CSS background while the real image loads. Server side: it signs with the secret.
 */
export async function blurDataUrl(input: BlurPlaceholderInput): Promise<string> {
  const format = input.format ?? "webp";
  const url = await signUrl({ ...input, operations: { placeholder: true, format } });
  const response = await (input.fetch ?? fetch)(url);
  if (!response.ok) throw new Error(`placeholder for ${input.source}: OptStuff answered ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return `data:${response.headers.get("content-type") ?? `image/${format}`};base64,${base64(bytes)}`;
}
