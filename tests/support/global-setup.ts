// Vitest global setup: the transform process script the services fork, built from the current source
// (as `npm run build` does for the app), so integration tests run transforms the way `npm start` does.
import { buildTransformWorker } from "../../scripts/build-transform-worker.mjs";

export default async function setup(): Promise<void> {
  await buildTransformWorker();
}
