import { z } from "zod";

/** `info`'s palette as the route answers it; anything else in the JSON is not this component's. */
const answerWithPalette = z.object({
  palette: z.array(z.object({ colour: z.string().regex(/^#[0-9a-f]{6}$/i), share: z.number().min(0).max(1) })).min(1),
});

/**
 * The palette of an `info` answer as swatches, each with its colour and share in text (the colour is
 * never the only way to read it). Nothing for JSON without one: an error body, a transparent image.
 */
export function PaletteSwatches({ json }: { json: unknown }) {
  const parsed = answerWithPalette.safeParse(json);
  if (!parsed.success) return null;
  return (
    <ul aria-label="Palette" data-testid="palette" className="flex flex-wrap gap-2 text-xs">
      {parsed.data.palette.map(({ colour, share }) => (
        <li key={colour} className="flex items-center gap-1.5 rounded-md border border-line px-2 py-1">
          <span aria-hidden className="size-4 rounded-sm border border-line" style={{ backgroundColor: colour }} />
          <span className="font-mono">{colour}</span>
          <span className="text-muted">{percent(share)}</span>
        </li>
      ))}
    </ul>
  );
}

/** A share as a whole percentage; an accent colour under half a percent is still there, so not "0 %". */
function percent(share: number): string {
  const whole = Math.round(share * 100);
  return whole === 0 ? "< 1 %" : `${whole} %`;
}
