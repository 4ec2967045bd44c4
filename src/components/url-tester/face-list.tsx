import { z } from "zod";

/** `info,g_face`'s faces as the route answers them; JSON without a list is not this component's. */
const answerWithFaces = z.object({
  faces: z.array(
    z.object({
      left: z.number(),
      top: z.number(),
      width: z.number(),
      height: z.number(),
      score: z.number().min(0).max(1),
    }),
  ),
});

/**
 * The faces `info` found (with g_face or g_auto beside it), in words: where each is in the source and
 * how sure the detector was, or that it found none, which is what a crop will then fall back on.
 */
export function FaceList({ json }: { json: unknown }) {
  const parsed = answerWithFaces.safeParse(json);
  if (!parsed.success) return null;
  const { faces } = parsed.data;
  if (faces.length === 0) {
    return (
      <p data-testid="faces-none" className="text-xs text-muted">
        No face found: g_face keeps the centre of this image, g_auto what attention picks.
      </p>
    );
  }
  return (
    <ul aria-label="Faces" className="flex flex-col gap-1 text-xs">
      {faces.map(({ left, top, width, height, score }, i) => (
        <li key={`${left},${top}`} className="font-mono">
          Face {i + 1}: {width}×{height} px at {left}, {top} ({Math.round(score * 100)} % sure)
        </li>
      ))}
    </ul>
  );
}
