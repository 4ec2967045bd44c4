// @ts-check (tsconfig.json includes this file: `npm run typecheck` holds it to NextConfig)
/** What no function needs, whatever the tracer finds (a deployment would upload it inside each one). */
const TRACE_EXCLUDES = [
  ".data/**",
  ".git/**",
  ".ci/**",
  ".env*",
  "tests/**",
  "docs/**",
  "bench/**",
  "artifacts/**",
  "coverage/**",
  "examples/**",
  // face-api's other models (14 MB) and builds, and TensorFlow.js's builds for browsers: the server
  // loads the tiny face detector through face-api.node-wasm.js only (src/server/image/faces/detector.ts).
  ...[
    "age_gender",
    "face_expression",
    "face_landmark_68",
    "face_landmark_68_tiny",
    "face_recognition",
    "ssd_mobilenetv1",
  ].map((model) => `node_modules/@vladmandic/face-api/model/${model}_model*`),
  ...[
    "face-api.js",
    "face-api.esm.js",
    "face-api.esm-nobundle.js",
    "face-api.node.js",
    "face-api.node-gpu.js",
    "tfjs.esm.js",
  ].map((build) => `node_modules/@vladmandic/face-api/dist/${build}`),
  "node_modules/@vladmandic/face-api/demo/**",
  "node_modules/@tensorflow/tfjs-backend-wasm/dist/miniprogram/**",
  "node_modules/@tensorflow/tfjs-backend-wasm/dist/*.{es2017,fesm,min}.js",
];

/** The bundled fonts for SVG text (src/server/image/configure-sharp.ts). */
const FONTS = ["assets/fonts.conf", "node_modules/dejavu-fonts-ttf/ttf/*.ttf", "node_modules/dejavu-fonts-ttf/LICENSE"];

/** The face detector's weights and TensorFlow.js's WebAssembly, read from paths (src/server/image/faces/detector.ts). */
const FACES = [
  "node_modules/@vladmandic/face-api/model/tiny_face_detector_model*",
  "node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm",
];

// JavaScript, not TypeScript: `next start` compiles a next.config.ts with its SWC binary at every start,
// and that binary then stays mapped: 27 MB of the idle server's 147 (120 MB with this file).
/** @type {import("next").NextConfig} */
const nextConfig = {
  // sharp and the database drivers are native or large; load them from node_modules at run time
  // instead of bundling them into the server build. proper-lockfile too: each bundled copy would add
  // its own signal-exit hook, and with two of them a SIGTERM kills the server before its shutdown
  // (drain the request log, flush usage, release the embedded database) finishes.
  // One copy of the OpenTelemetry API for the whole server: a bundled copy in a route would never see
  // the tracer provider the instrumentation hook registers, and its spans would be lost.
  serverExternalPackages: [
    "sharp",
    // HEIC's decoder: 2 MB of JavaScript with its WebAssembly inside, loaded on the first HEIC (heic.ts).
    "libheif-js",
    // The face detector (g_face, g_auto): face-api on TensorFlow.js's WebAssembly backend, in a transform process.
    "@vladmandic/face-api",
    "@tensorflow/tfjs",
    "@tensorflow/tfjs-backend-wasm",
    "@electric-sql/pglite",
    "postgres",
    "jsdom",
    "dompurify",
    "proper-lockfile",
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace-node",
    "@opentelemetry/resources",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/exporter-trace-otlp-proto",
  ],
  poweredByHeader: false,
  // Each route's code is loaded when it is first asked for, not every page and route at start: the
  // server held 190 MB idle with all of them loaded, 142-146 MB this way; the first dashboard page after
  // a start takes 0.7 s instead of 0.5, the image route's first answer is unchanged (docs/benchmarks.md).
  experimental: { preloadEntriesOnStart: false },
  // Paths resolved from the working directory at run time (the migrations folder, the data directory)
  // make the tracer take the whole project into every function: the embedded database and its
  // generated secrets, the git history. None of this runs (tests/browser/build-traces.test.ts).
  outputFileTracingExcludes: { "*": TRACE_EXCLUDES },
  // Read by fontconfig from a path, never imported: the tracer cannot see them. SVG text is drawn by
  // every function whose requests reach a transform (tests/support/svg-text-functions.ts). Next matches
  // each key as a glob anywhere in the function's route (`/api/trpc/[trpc]`; the excludes' `*` reaches
  // every function): keep keys literal. `/api/trpc/[trpc]` was a key whose `[trpc]` is a character
  // class, matching nothing, and the tRPC function had the font configuration (traced from
  // services.ts) without the fonts it names (tests/unit/config/trace-includes.test.ts).
  outputFileTracingIncludes: {
    // The image API.
    "/api/image-delivery": [...FONTS, ...FACES],
    // The dashboard's API: previews, made of the sample photo (src/server/delivery/preview-operations.ts),
    // and uploads, decoded to be checked (src/server/image/check-upload.ts).
    "/api/trpc": [...FONTS, ...FACES, "demo/photo.jpg"],
  },
  // Compression is scripts/server.mjs's, which leaves the image API alone: Next's would gzip SVG and
  // JSON answers, drop their Content-Length and add `Vary: Accept-Encoding` (contract §4 allows only
  // Accept and Referer). A CDN or proxy in front compresses as it likes.
  compress: false,
  async rewrites() {
    // Before Next matches routes: its param decoding fails on a malformed escape before any handler
    // runs. The handler reads the raw path from the request (src/pages/api/image-delivery.ts).
    return {
      beforeFiles: [{ source: "/api/v1/:path*", destination: "/api/image-delivery" }],
      afterFiles: [],
      fallback: [],
    };
  },
  reactStrictMode: true,
  async headers() {
    return [
      {
        // Every page (the dashboard), none of /api: the image API's headers are the contract's (§4), and
        // a JSON or image answer has nothing to click. No page may be framed: one-click actions (accept
        // an invitation, revoke a key) under another site's transparent frame are clickjacking.
        // X-Frame-Options for browsers that predate CSP frame-ancestors.
        source: "/((?!api/).*)",
        headers: [
          { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
};

export default nextConfig;
