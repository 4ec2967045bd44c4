/**
 * The scans of a JPEG, counted from its markers without decoding: a progressive JPEG's decode costs
 * its scans × its area, and one made of thousands of scans keeps libjpeg in one uninterruptible call
 * for seconds (a 2048² image of 28,500 scans: 13 s). sharp reports whether a JPEG is progressive, not
 * how many scans it has, and no maintained JavaScript library walks the entropy-coded data, so the walk
 * is here: segments are skipped by their length, scan data up to its next marker (a 0xFF in scan data
 * is followed by 0x00, or by a restart marker, unless it starts a marker).
 *
 * Answers the count, or `stopAfter + 1` as soon as it is passed; null when the bytes are not a JPEG's
 * structure (what cannot be read is not judged safe).
 */
export function countJpegScans(bytes: Uint8Array, stopAfter: number): number | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== MARKER.SOI) return null;
  let at = 2;
  let scans = 0;
  while (at + 1 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1; // a fill byte before a marker
      continue;
    }
    if (marker === MARKER.EOI) return scans;
    if (standalone(marker)) {
      at += 2;
      continue;
    }
    if (at + 3 >= bytes.length) return scans;
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    if (length < 2) return null;
    at += 2 + length;
    if (marker !== MARKER.SOS) continue;
    if (++scans > stopAfter) return scans;
    at = nextMarker(bytes, at);
  }
  return scans;
}

const MARKER = { SOI: 0xd8, EOI: 0xd9, SOS: 0xda, TEM: 0x01 } as const;

/** Markers without a length: restarts, SOI, and TEM. */
function standalone(marker: number): boolean {
  return (marker >= 0xd0 && marker <= MARKER.SOI) || marker === MARKER.TEM;
}

/** Where the marker after a scan's entropy-coded data starts (the end of the bytes if none does). */
function nextMarker(bytes: Uint8Array, from: number): number {
  let at = from;
  for (;;) {
    const ff = bytes.indexOf(0xff, at);
    if (ff < 0 || ff + 1 >= bytes.length) return bytes.length;
    const next = bytes[ff + 1]!;
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7) || next === 0xff) {
      at = next === 0xff ? ff + 1 : ff + 2;
      continue;
    }
    return ff;
  }
}
