import sharp, { type OutputInfo, type SharpOptions } from "sharp";
import { escapeUTF8 } from "entities";
import { AppError } from "@/server/errors";
import { TEXT_DEFAULTS } from "./operations/text-tokens";
import type { Box, Overlay, OverlayFor } from "./overlay";
import type { TextFont, TextStyle } from "./types";
import { HORIZONTAL, place } from "./watermark";

const FAMILIES: Record<TextFont, string> = { sans: "DejaVu Sans", serif: "DejaVu Serif", mono: "DejaVu Sans Mono" };
const ALIGN = { start: "left", middle: "centre", end: "right" } as const;
/** The size is in points, which libvips lays out at this many to the inch: at 72 a point is a pixel. */
const PIXEL_DPI = 72;
/**
 * A caption whose worst layout (a character a line) stays under this many pixels (16 MB of RGBA) is
 * laid out at its size first; a larger one is previewed smaller or fitted (laidOut), so that no caption
 * makes the text engine draw a surface past the output (cairo refuses past 32767 px anyway).
 */
const DIRECT_AREA = 4_000_000;
/** A transparent pixel in the corner: what a caption of characters that draw nothing puts over the output. */
const NOTHING: Overlay = { data: Buffer.alloc(4), width: 1, height: 1, left: 0, top: 0 };
/** The box reaches this share of the font size past the text on every side. */
const BOX_PADDING = 0.25;

/** The caption as an overlay of the output, drawn above any watermark (it comes last). */
export function captionOverlayFor(text: string, style: Partial<TextStyle> | undefined, dpr: number): OverlayFor {
  const full: TextStyle = { ...TEXT_DEFAULTS, ...style };
  return (output) => captionOverlay(text, full, dpr, output);
}

/**
 * The caption laid out by Pango (bidirectional text, shaping, combining marks), wrapped within the
 * output less its margins. A caption too long for that room at its size is laid out at the largest size
 * that fits instead, so a caption is never cut off mid-line by the edge. The text goes in as escaped
 * markup inside one span: whatever it holds is drawn as typed.
 */
export async function captionOverlay(text: string, style: TextStyle, dpr: number, output: Box): Promise<Overlay> {
  const size = style.size * dpr;
  // Offsets and the box's padding give way before the text does: each takes at most a quarter of a side.
  const margin = { x: Math.min(style.x * dpr, output.width / 4), y: Math.min(style.y * dpr, output.height / 4) };
  const inner = { width: output.width - 2 * margin.x, height: output.height - 2 * margin.y };
  const padding = style.box ? Math.floor(Math.min(size * BOX_PADDING, inner.width / 4, inner.height / 4)) : 0;
  const room = {
    width: Math.max(1, Math.floor(inner.width - 2 * padding)),
    height: Math.max(1, Math.floor(inner.height - 2 * padding)),
  };
  const { r, g, b, alpha } = style.colour;
  const colour = `#${[r, g, b].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
  const options = {
    text: `<span foreground="${colour}" fgalpha="${Math.max(1, Math.round(alpha * 65535))}">${escapeUTF8(text)}</span>`,
    font: `${FAMILIES[style.font]}, ${style.size}`,
    rgba: true,
    width: room.width,
    wrap: "word-char" as const,
    align: ALIGN[HORIZONTAL[style.gravity]],
  };
  let drawn: Drawn;
  try {
    const asked = Math.max(1, Math.round(PIXEL_DPI * dpr));
    drawn = await laidOut(options, asked, room, { characters: [...text].length, size });
  } catch (error) {
    // Characters that draw nothing (fillers, blank patterns) leave nothing to put over the output.
    if (error instanceof Error && /no text to render/.test(error.message)) return NOTHING;
    throw error;
  }
  const glyphs = within(drawn.data, drawn.info, room);
  const boxed = style.box ? await inBox(glyphs, style.box, padding) : glyphs;
  const offsets = { gravity: style.gravity, x: margin.x / dpr, y: margin.y / dpr };
  return { ...boxed, ...place(offsets, dpr, output, boxed) };
}

type TextOptions = Omit<NonNullable<SharpOptions["text"]>, "dpi" | "height">;
type Drawn = { data: Buffer; info: OutputInfo };
/** The preview's scale: a layout this many times smaller, to see the caption's shape before drawing it. */
const PREVIEW_SCALE = 16;
/** A preview is drawn only when its own worst layout stays this small (1 MB of RGBA): else it costs more than it saves. */
const PREVIEW_AREA = DIRECT_AREA / 16;

/**
 * The caption at the size asked for (`asked` dpi) when it fits the room, else at the largest size that
 * does. What is drawn at the asked size is bounded before it is drawn: by its worst layout (a glyph a
 * line, each line as wide as the room or the glyph), or, past that, by the same layout drawn
 * PREVIEW_SCALE times smaller when that is cheap. A caption that does not fit searches for a size
 * (libvips' autofit lays the text out at many sizes: 100 ms on a large room, hence the preview).
 */
async function laidOut(
  options: TextOptions,
  asked: number,
  room: Box,
  { characters, size }: { characters: number; size: number },
): Promise<Drawn> {
  const draw = (fit: Pick<NonNullable<SharpOptions["text"]>, "dpi" | "height" | "width">) =>
    sharp({ text: { ...options, ...fit } })
      .raw()
      .toBuffer({ resolveWithObject: true });
  const fits = (box: Box) => box.width <= room.width && box.height <= room.height;
  const worst = Math.max(room.width, 2 * size) * characters * 1.2 * size;
  let likely = worst <= DIRECT_AREA;
  if (!likely && worst / PREVIEW_SCALE ** 2 <= PREVIEW_AREA) {
    const preview = await draw({
      dpi: Math.max(1, Math.round(asked / PREVIEW_SCALE)),
      width: Math.max(1, Math.floor(room.width / PREVIEW_SCALE)),
    });
    const seen = { width: preview.info.width * PREVIEW_SCALE, height: preview.info.height * PREVIEW_SCALE };
    likely = seen.width * seen.height <= DIRECT_AREA && fits(seen);
  }
  const drawn = likely ? await draw({ dpi: asked }) : null;
  if (drawn && fits(drawn.info)) return drawn;
  const fitted = await draw({ height: room.height });
  // Fitting also grows a caption to fill the room: one that fits at the size asked for is drawn so.
  return (fitted.info.textAutofitDpi ?? 0) >= asked ? (drawn ?? (await draw({ dpi: asked }))) : fitted;
}

interface Pixels extends Box {
  data: Buffer;
}

/** Cut to the room: the fitting search stops at a smallest size, which a caption of 200 lines passes. */
function within(data: Buffer, info: Box & { channels: number }, room: Box): Pixels {
  if (info.channels !== 4) throw new AppError("INTERNAL", { message: "caption pixels lost their alpha" });
  if (info.width <= room.width && info.height <= room.height) return { data, width: info.width, height: info.height };
  const width = Math.min(info.width, room.width);
  const height = Math.min(info.height, room.height);
  const rows = Array.from({ length: height }, (_, row) =>
    data.subarray(row * info.width * 4, row * info.width * 4 + width * 4),
  );
  return { data: Buffer.concat(rows), width, height };
}

async function inBox(glyphs: Pixels, box: TextStyle["colour"], padding: number): Promise<Pixels> {
  const width = glyphs.width + 2 * padding;
  const height = glyphs.height + 2 * padding;
  const { data } = await sharp({ create: { width, height, channels: 4, background: box } })
    .composite([
      {
        input: glyphs.data,
        raw: { width: glyphs.width, height: glyphs.height, channels: 4 },
        left: padding,
        top: padding,
      },
    ])
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width, height };
}
