// Vitest global setup of the integration project: the transform process script the services fork,
// built from the current source (as `npm run build` does for the app), so integration tests run
// transforms the way `npm start` does; the command line's bundle, made once rather than by the first
// command that finds it stale; and the migrated database every test's own is copied from.
import type { TestProject } from "vitest/node";
import { buildCli } from "../../scripts/build-cli.mjs";
import { buildTransformWorker } from "../../scripts/build-transform-worker.mjs";
import { makeDatabaseTemplate } from "./database-template";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildTransformWorker();
  await buildCli();
  const { template, remove } = await makeDatabaseTemplate();
  project.provide("databaseTemplate", template);
  return remove;
}
