import { accountRouter } from "./routers/account";
import { alertsRouter } from "./routers/alerts";
import { apiKeyRouter } from "./routers/api-key";
import { auditRouter } from "./routers/audit";
import { cacheRouter } from "./routers/cache";
import { developerRouter } from "./routers/developer";
import { presetRouter } from "./routers/preset";
import { projectImageRouter } from "./routers/project-image";
import { sourceBucketRouter } from "./routers/source-bucket";
import { projectRouter } from "./routers/project";
import { teamRouter } from "./routers/team";
import { usageRouter } from "./routers/usage";
import { webhooksRouter } from "./routers/webhooks";
import { auditStreamRouter } from "./routers/audit-stream";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  account: accountRouter,
  team: teamRouter,
  project: projectRouter,
  apiKey: apiKeyRouter,
  cache: cacheRouter,
  preset: presetRouter,
  projectImage: projectImageRouter,
  sourceBucket: sourceBucketRouter,
  developer: developerRouter,
  usage: usageRouter,
  audit: auditRouter,
  alerts: alertsRouter,
  webhooks: webhooksRouter,
  auditStream: auditStreamRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side calls (tests, server components) go through the same procedures and checks. */
export const createCaller = createCallerFactory(appRouter);
