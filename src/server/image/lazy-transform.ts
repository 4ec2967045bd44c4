import { lazyOnce } from "@/server/lazy-once";
import type { SharpSettings } from "./configure-sharp";
import type { PlaceTransform } from "./isolation/placement";
import type { Transformer } from "./transformer";

/** libvips in this process: its transforms, and the check that says which may run here (placement.ts). */
export interface LazyEngine {
  transform: Transformer;
  place: PlaceTransform;
}

/**
 * Transforms in this process, with sharp loaded and configured by the first use of either: a function
 * whose transforms run in child processes, or that never transforms (cron, health, most of the
 * dashboard), never loads it (npm run bench:cold-start).
 */
export function lazyEngine(settings: SharpSettings): LazyEngine {
  const load = lazyOnce(async () => {
    const engine = await import("./engine");
    engine.configureSharp(settings);
    return engine;
  });
  return {
    transform: async (...args) => (await load()).inProcessTransform(...args),
    place: async (...args) => (await load()).placeTransform(...args),
  };
}
