/**
 * What runs libvips in this process: importing it loads sharp. Kept out of the `@/server/image` index,
 * which the routes reach for operations, formats and the scheduler: a cron or dashboard function does
 * not load sharp until it transforms something (lazy-transform.ts).
 */
export { configureSharp, type SharpSettings } from "./configure-sharp";
export { placeTransform } from "./isolation/placement";
export { transformImage, type TransformRequest } from "./pipeline";
export { inProcessTransform } from "./transformer";
