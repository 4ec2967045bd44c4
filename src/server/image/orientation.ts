/**
 * The user's flip/flop/rotate (r_) as one transform of the plane, applied in sharp's order: flip, then
 * flop, then rotate clockwise. The pipeline promises crop → resize → orient, but sharp runs orientation
 * before its crop stage; these helpers move regions and gravities through the transform so that
 * running it first gives the same picture (see plan-geometry).
 */
export interface Orientation {
  rotate: 0 | 90 | 180 | 270;
  flip: boolean;
  flop: boolean;
}

export interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Compass gravities as (x, y) directions, y pointing down as in images. */
const COMPASS = {
  center: [0, 0],
  north: [0, -1],
  northeast: [1, -1],
  east: [1, 0],
  southeast: [1, 1],
  south: [0, 1],
  southwest: [-1, 1],
  west: [-1, 0],
  northwest: [-1, -1],
} as const satisfies Record<string, readonly [number, number]>;

function quarterTurns(orientation: Orientation): number {
  return orientation.rotate / 90;
}

export function swapsAxes(orientation: Orientation): boolean {
  return quarterTurns(orientation) % 2 === 1;
}

/** Where a compass gravity points after the transform; smart strategies (attention, entropy) are unchanged. */
export function orientGravity(gravity: string, orientation: Orientation): string {
  const direction = (COMPASS as Record<string, readonly [number, number]>)[gravity];
  if (!direction) return gravity;
  let [x, y] = direction;
  if (orientation.flip) y = -y;
  if (orientation.flop) x = -x;
  for (let i = 0; i < quarterTurns(orientation); i++) [x, y] = [-y, x];
  const found = Object.entries(COMPASS).find(([, [cx, cy]]) => cx === x && cy === y);
  return found ? found[0] : gravity;
}

/** A region of a width×height image, expressed in the transformed image's coordinates. */
export function orientRegion(
  region: Region,
  size: { width: number; height: number },
  orientation: Orientation,
): Region {
  let { left, top, width, height } = region;
  let [imageWidth, imageHeight] = [size.width, size.height];
  if (orientation.flip) top = imageHeight - top - height;
  if (orientation.flop) left = imageWidth - left - width;
  for (let i = 0; i < quarterTurns(orientation); i++) {
    // 90° clockwise: pixel (x, y) moves to (imageHeight - 1 - y, x) and the image becomes height×width.
    [left, top, width, height] = [imageHeight - top - height, left, height, width];
    [imageWidth, imageHeight] = [imageHeight, imageWidth];
  }
  return { left, top, width, height };
}
