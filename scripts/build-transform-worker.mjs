// Bundles the transform process's entry (src/server/image/isolation/child-main.ts) into one ESM file
// that Node runs directly: the server forks it for every transform process. sharp (a native module),
// jsdom and DOMPurify (the SVG sanitiser: jsdom reads files of its own at run time) and libheif-js stay external,
// resolved from node_modules next to the bundle's folder. The source download thread's entry
// (src/server/source/download-thread/thread-main.ts) is bundled the same way. `npm run build` and the
// test setup run this; it takes well under a second. So is the embedded database's process
// (src/server/db/embedded/process-main.ts), which the server forks when it has no DATABASE_URL.
import { build } from "esbuild";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const TRANSFORM_WORKER = "dist/transform-worker.mjs";
export const DOWNLOAD_THREAD = "dist/source-download-thread.mjs";
export const EMBEDDED_DATABASE = "dist/embedded-database.mjs";

export async function buildTransformWorker(root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")) {
  await bundle(root, "src/server/image/isolation/child-main.ts", TRANSFORM_WORKER);
  await bundle(root, "src/server/source/download-thread/thread-main.ts", DOWNLOAD_THREAD);
  // PGlite finds its WebAssembly and data files next to its own module: it stays in node_modules.
  await bundle(root, "src/server/db/embedded/process-main.ts", EMBEDDED_DATABASE, ["@electric-sql/pglite"]);
  return path.join(root, TRANSFORM_WORKER);
}

/** One ESM file for Node from a TypeScript entry, its dependencies inside but for the native and data-reading ones. */
export async function bundle(root, entry, outfile, alsoExternal = []) {
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    // libheif-js: HEIC's decoder, 2 MB with its WebAssembly inside, loaded only on the first HEIC.
    // face-api and TensorFlow.js: the face detector, loaded on the first g_face or g_auto; its WebAssembly
    // and weights are files read beside its modules.
    external: ["sharp", "jsdom", "dompurify", "libheif-js", "@vladmandic/face-api", "@tensorflow/*", ...alsoExternal],
    tsconfig: "tsconfig.json",
    logLevel: "warning",
    // A bundled CommonJS dependency may call require(): give the ESM bundle one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`transform worker: ${await buildTransformWorker()}`);
}
