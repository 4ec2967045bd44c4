/** libheif-js ships types for its libheif.js, not for the bundle with the WebAssembly inside (heic.ts). */
declare module "libheif-js/wasm-bundle.js" {
  const libheif: unknown;
  export default libheif;
}
