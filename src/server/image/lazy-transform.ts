import type { SharpSettings } from "./configure-sharp";
import type { Transformer } from "./transformer";

/**
 * Transforms in this process, with sharp loaded and configured by the first one: a function whose
 * transforms run in child processes, or that never transforms (cron, health, most of the dashboard),
 * never loads it (npm run bench:cold-start).
 */
export function lazyInProcessTransform(settings: SharpSettings): Transformer {
  let loaded: Promise<Transformer> | undefined;
  const load = () =>
    (loaded ??= import("./engine")
      .then(({ configureSharp, inProcessTransform }) => {
        configureSharp(settings);
        return inProcessTransform;
      })
      .catch((error: unknown) => {
        loaded = undefined; // the next transform tries again
        throw error;
      }));
  return async (...args) => (await load())(...args);
}
