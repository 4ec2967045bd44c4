import { lazyOnce } from "@/server/lazy-once";
import type { SharpSettings } from "./configure-sharp";
import type { Transformer } from "./transformer";

/**
 * Transforms in this process, with sharp loaded and configured by the first one: a function whose
 * transforms run in child processes, or that never transforms (cron, health, most of the dashboard),
 * never loads it (npm run bench:cold-start).
 */
export function lazyInProcessTransform(settings: SharpSettings): Transformer {
  const load = lazyOnce(async (): Promise<Transformer> => {
    const { configureSharp, inProcessTransform } = await import("./engine");
    configureSharp(settings);
    return inProcessTransform;
  });
  return async (...args) => (await load())(...args);
}
