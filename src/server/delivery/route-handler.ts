import type { Services } from "@/server/services";
import { serveImage } from "./serve-image";

export interface RouteContext {
  params: Promise<{ projectSlug: string; path: string[] }>;
}

/**
 * The image route as a function of its services and of how to run work after the response
 * (Next's `after` in the app, a plain runner in tests), so tests drive exactly what production runs.
 */
export function createImageRouteHandler(getServices: () => Promise<Services>, defer: (task: () => void) => void) {
  return async function handle(request: Request, context: RouteContext): Promise<Response> {
    const [{ projectSlug, path }, services] = await Promise.all([context.params, getServices()]);
    const { response, outcome } = await serveImage(
      { method: request.method, projectSlug, segments: path, url: new URL(request.url), headers: request.headers },
      services.delivery,
    );
    defer(() => void services.recordOutcome(outcome));
    return response;
  };
}
