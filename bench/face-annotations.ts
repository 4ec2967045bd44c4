/**
 * Face boxes drawn by hand (brow to chin, cheek to cheek, in source pixels) on the six photographs
 * @vladmandic/face-api ships in its package (demo/sample1–6.jpg, MIT, read from node_modules, not
 * copied here): 21 faces in group portraits, some in profile or looking down. Checked by drawing them
 * over the pictures (bench/faces.ts --draw).
 */
export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

export const ANNOTATED: ReadonlyArray<{ file: string; faces: readonly Box[] }> = [
  {
    file: "sample1.jpg",
    faces: [
      { left: 403, top: 346, width: 240, height: 220 },
      { left: 829, top: 422, width: 207, height: 227 },
      { left: 1459, top: 192, width: 230, height: 259 },
    ],
  },
  {
    file: "sample2.jpg",
    faces: [
      { left: 365, top: 144, width: 163, height: 307 },
      { left: 902, top: 192, width: 192, height: 278 },
      { left: 1430, top: 144, width: 240, height: 250 },
    ],
  },
  {
    file: "sample3.jpg",
    faces: [
      { left: 586, top: 346, width: 192, height: 250 },
      { left: 1075, top: 211, width: 250, height: 307 },
      { left: 1498, top: 288, width: 192, height: 259 },
    ],
  },
  {
    file: "sample4.jpg",
    faces: [
      { left: 269, top: 211, width: 163, height: 240 },
      { left: 643, top: 67, width: 221, height: 221 },
      { left: 989, top: 192, width: 173, height: 221 },
      { left: 1267, top: 134, width: 163, height: 250 },
    ],
  },
  {
    file: "sample5.jpg",
    faces: [
      { left: 374, top: 893, width: 211, height: 259 },
      { left: 605, top: 451, width: 163, height: 211 },
      { left: 787, top: 115, width: 173, height: 221 },
      { left: 1094, top: 250, width: 192, height: 240 },
      { left: 1402, top: 394, width: 192, height: 278 },
    ],
  },
  {
    file: "sample6.jpg",
    faces: [
      { left: 250, top: 490, width: 230, height: 259 },
      { left: 653, top: 326, width: 192, height: 269 },
      { left: 1152, top: 336, width: 211, height: 240 },
      { left: 1488, top: 269, width: 202, height: 288 },
    ],
  },
];
