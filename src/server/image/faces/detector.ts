import type { FaceBox } from "@optstuff/client";
import path from "node:path";

/** A face found, in the pixels of the image it was found in: the shape `info` lists them in. */
export type Face = FaceBox;

/** Packed RGB, three bytes a pixel. */
export interface RgbPixels {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Faces in a picture, at the side it works at; the only thing the pipeline knows of the model. */
export interface FaceDetector {
  /** The longest side of the picture it is given: a larger one is shrunk first. */
  side: number;
  detect(pixels: RgbPixels): Promise<Face[]>;
}

/**
 * The side the detector works at: it pads the picture to this square and scales it there, so its cost
 * does not grow with the source (docs/benchmarks.md, Faces: 224 is faster and misses more faces, 416
 * finds more and takes twice as long).
 */
export const DETECTOR_SIDE = 320;
/** Below this confidence a detection is more often a pattern than a face (bench/faces.ts). */
const MIN_SCORE = 0.5;
/**
 * What loading the detector adds to a process's resident memory: TensorFlow.js, its WebAssembly heap
 * and the weights (127–130 MB measured by bench:faces and in a transform process), with room to spare.
 */
export const FACE_DETECTOR_BYTES = 144 * 2 ** 20;
/** The tiny face detector's weights (193 KB), read from the package, never downloaded. */
const MODEL_DIR = "node_modules/@vladmandic/face-api/model";

interface Tensor {
  dispose(): void;
}
interface FaceApi {
  tf: {
    enableProdMode(): void;
    setBackend(name: string): Promise<boolean>;
    ready(): Promise<void>;
    tensor3d(data: Uint8Array, shape: [number, number, number], dtype: "int32"): Tensor;
  };
  nets: { tinyFaceDetector: { loadFromDisk(dir: string): Promise<void> } };
  TinyFaceDetectorOptions: new (options: { inputSize: number; scoreThreshold: number }) => unknown;
  tinyFaceDetector(
    input: Tensor,
    options: unknown,
  ): Promise<Array<{ score: number; box: { x: number; y: number; width: number; height: number } }>>;
}

let faceApi: Promise<FaceApi> | undefined;

/**
 * face-api's tiny face detector (MIT, weights from face-api.js) on TensorFlow.js's WebAssembly backend:
 * no native code, loaded on the first picture a process looks for faces in.
 */
function loadFaceApi(): Promise<FaceApi> {
  faceApi ??= (async () => {
    // Emscripten's Node glue registers handlers that rethrow any uncaught exception and unhandled
    // rejection, which would turn one stray promise anywhere in the server into its exit: removed.
    const before = {
      exception: process.listeners("uncaughtException"),
      rejection: process.listeners("unhandledRejection"),
    };
    try {
      const imported = (await import("@vladmandic/face-api/dist/face-api.node-wasm.js")) as unknown as FaceApi & {
        default?: FaceApi;
      };
      const api = imported.default ?? imported;
      api.tf.enableProdMode();
      await api.tf.setBackend("wasm");
      await api.tf.ready();
      await api.nets.tinyFaceDetector.loadFromDisk(path.resolve(MODEL_DIR));
      return api;
    } finally {
      for (const added of process.listeners("uncaughtException").filter((l) => !before.exception.includes(l))) {
        process.removeListener("uncaughtException", added);
      }
      for (const added of process.listeners("unhandledRejection").filter((l) => !before.rejection.includes(l))) {
        process.removeListener("unhandledRejection", added);
      }
    }
  })().catch((error: unknown) => {
    faceApi = undefined;
    throw error;
  });
  return faceApi;
}

/** The tiny face detector at a side; the defaults are the server's, other values are for benchmarks. */
export function tinyFaceDetector(side = DETECTOR_SIDE, minScore = MIN_SCORE): FaceDetector {
  return {
    side,
    async detect({ data, width, height }) {
      const api = await loadFaceApi();
      const tensor = api.tf.tensor3d(data, [height, width, 3], "int32");
      try {
        const options = new api.TinyFaceDetectorOptions({ inputSize: side, scoreThreshold: minScore });
        const found = await api.tinyFaceDetector(tensor, options);
        return found.map(({ score, box }) => ({
          left: box.x,
          top: box.y,
          width: box.width,
          height: box.height,
          score,
        }));
      } finally {
        tensor.dispose();
      }
    },
  };
}

export const defaultFaceDetector = tinyFaceDetector();
