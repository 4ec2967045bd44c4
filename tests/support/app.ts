import path from "node:path";
import { fileURLToPath } from "node:url";
import type { RequestOutcome } from "@/server/delivery/serve-image";
import { TRANSFORM_WORKER_ENTRY } from "@/server/image/isolation/settings";
import { imageSettings } from "@/server/image/settings";
import { DOWNLOAD_THREAD_ENTRY } from "@/server/source/settings";
import type { DatabaseHandle } from "@/server/db/client";
import { createImageRouteHandler } from "@/server/http/image-route";
import { createServices, type Seams, type Services } from "@/server/services";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createTestDatabase } from "./database";
import { buildSignedUrl } from "./signed-url";
import { setupAudit } from "./audit";
import { testEnv, type TestSettings } from "./settings";
import { createTestLogger, type TestLogger } from "./test-log";

export { DEMO_ROOT, NO_REDIS, filesStore, redisSettings, testRedisSettings } from "./settings";

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Transform processes as `npm start` runs them, with the script the integration setup built. */
export function testTransformIsolation(memoryLimitBytes = 512 * 2 ** 20) {
  return {
    entry: path.join(repository, TRANSFORM_WORKER_ENTRY),
    memoryLimitBytes,
    // The production default (OPTSTUFF_TRANSFORM_JOBS_PER_PROCESS).
    jobsPerProcess: imageSettings.settings.OPTSTUFF_TRANSFORM_JOBS_PER_PROCESS.default,
  };
}

/** The built download thread (tests/support/global-setup.ts builds it with the transform worker). */
export const TEST_DOWNLOAD_THREAD = path.join(repository, DOWNLOAD_THREAD_ENTRY);

export interface TestAppOptions {
  /** Settings over the test defaults (settings.ts), as the environment would give them. */
  env?: TestSettings;
  /** What the test injects besides: a clock, a logger, network seams, the preview's sample. */
  seams?: Omit<Seams, "database">;
  sourceHosts?: string[];
  /** A database that outlives this app (a restart: the next app opens the same one); the caller closes it. */
  database?: DatabaseHandle;
}

export interface TestApp {
  services: Services;
  projectSlug: string;
  projectId: string;
  key: { id: string; publicKey: string; secretKey: string };
  outcomes: RequestOutcome[];
  /**
   * What the app logged, kept instead of printed (test-log.ts): a test that provokes an error asserts
   * its line here. Empty when the test passed a logger of its own.
   */
  log: TestLogger;
  /** Path and query of a URL signed with the app's key (or the given one). */
  signedPath(
    operations: string,
    source: string,
    options?: { exp?: number; key?: { publicKey: string; secretKey: string }; slug?: string },
  ): string;
  /** Waits for the after-response work (metering, activity) of every request so far. */
  settled(): Promise<void>;
  /** Sends a request through the real route handler, decoding path segments once as Next does. */
  fetch(pathAndQuery: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

const BASE = "http://optstuff.test";

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  // Settings first: a refused one opens nothing.
  const env = testEnv(options.env);
  const given = options.database;
  const database = given ? { ...given, close: async () => undefined } : await createTestDatabase();
  const log = createTestLogger("info");
  const services = await createServices(env, { logger: log, ...options.seams, database });
  const { project, key } = await bootstrap(
    { db: database.db, secretBox: services.secretBox, audit: setupAudit, now: () => new Date() },
    {
      teamSlug: "acme",
      projectSlug: "blog",
      keyName: "test",
      sourceHosts: options.sourceHosts ?? ["local"],
      allowLoopback: true,
    },
  );
  const outcomes: RequestOutcome[] = [];
  const pending: Promise<void>[] = [];
  const handler = createImageRouteHandler(async () => services);
  // Runs after the response, as the route does once the answer is written: on a later macrotask, so a
  // test that reads counters right after a response sees only what the request itself did.
  const defer = (task: () => void) => void setTimeout(task, 0);
  const originalRecord = services.usage.recordOutcome;
  services.usage.recordOutcome = (outcome) => {
    outcomes.push(outcome);
    const work = originalRecord(outcome);
    pending.push(work);
    return work;
  };

  return {
    services,
    projectSlug: project.slug,
    projectId: project.id,
    key,
    outcomes,
    log,
    signedPath(operations, source, signOptions = {}) {
      const url = buildSignedUrl({
        baseUrl: BASE,
        projectSlug: signOptions.slug ?? project.slug,
        ...(signOptions.key ?? key),
        operations,
        source,
        exp: signOptions.exp,
      });
      return url.slice(BASE.length);
    },
    async settled() {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await Promise.all(pending.splice(0));
    },
    async fetch(pathAndQuery, init) {
      const url = new URL(pathAndQuery, BASE);
      if (!url.pathname.startsWith("/api/v1/")) throw new Error(`Not an image path: ${pathAndQuery}`);
      return handler.web(new Request(url, init), defer);
    },
    close: () => services.close(),
  };
}
