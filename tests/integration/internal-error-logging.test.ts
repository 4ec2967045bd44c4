import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTrpcRouteHandler } from "@/server/http/trpc-route";
import { createAuthRouteHandler } from "@/server/http/auth-route";
import { createCronRouteHandler } from "@/server/http/cron-route";
import { createImageRouteHandler } from "@/server/http/image-route";
import { createHealthRouteHandler } from "@/server/http/health-route";
import { createLogger } from "@/server/log";
import { createMetricsRouteHandler } from "@/server/http/metrics-route";
import type { Services } from "@/server/services";
import { createTestApp, type TestApp } from "../support/app";

/**
 * Every route, given a dependency that fails in a way no code expects: the answer is a bare 500 (or
 * the health route's 503), and the log line carries where the failure came from (the stack of the
 * error the dependency threw), redacted like every other line.
 */
const lines: string[] = [];
let app: TestApp;
// Shapes log.ts redacts: an API secret key and a long opaque token.
const SECRET = `sk_${"k".repeat(40)}`;
const TOKEN = "t".repeat(48);

beforeAll(async () => {
  app = await createTestApp({ seams: { logger: createLogger("debug", (line) => lines.push(line)) } });
}, 30_000);
afterAll(() => app?.close());

/** Thrown from this file, so its stack names it. */
function failure(): Error {
  return new TypeError(`cannot read properties of undefined (session ${TOKEN}, key ${SECRET})`);
}
const rejecting = () => Promise.reject(failure());

const routes: Array<[string, () => Promise<Response>]> = [
  [
    "image",
    () => {
      const services: Services = {
        ...app.services,
        delivery: {
          ...app.services.delivery,
          route: {
            ...app.services.delivery.route,
            config: { ...app.services.delivery.route.config, getApiKey: rejecting },
          },
        },
      };
      return createImageRouteHandler(async () => services).web(
        new Request(`http://optstuff.test${app.signedPath("w_10", "local/logo.png")}`),
        () => {},
      );
    },
  ],
  [
    "tRPC",
    async () => {
      const auth = await app.services.dashboard.auth();
      // better-auth's endpoint type carries more than a function; only the call matters here.
      const getSession = rejecting as unknown as typeof auth.api.getSession;
      const services: Services = {
        ...app.services,
        dashboard: { ...app.services.dashboard, auth: async () => ({ ...auth, api: { ...auth.api, getSession } }) },
      };
      return createTrpcRouteHandler(async () => services)(new Request("http://optstuff.test/api/trpc/account.me"));
    },
  ],
  [
    "auth",
    async () => {
      const auth = await app.services.dashboard.auth();
      const services: Services = {
        ...app.services,
        dashboard: { ...app.services.dashboard, auth: async () => ({ ...auth, handler: rejecting }) },
      };
      return createAuthRouteHandler(async () => services)(new Request("http://optstuff.test/api/auth/get-session"));
    },
  ],
  [
    "cron",
    () => {
      const services: Services = {
        ...app.services,
        jobs: { ...app.services.jobs, cron: { ...app.services.jobs.cron, flushUsage: rejecting } },
      };
      return createCronRouteHandler(
        async () => services,
        "flush-usage-buffer",
      )(
        new Request("http://optstuff.test/api/cron/flush-usage-buffer", {
          headers: { authorization: "Bearer test-cron" },
        }),
      );
    },
  ],
  [
    "metrics",
    () => {
      const services: Services = {
        ...app.services,
        metricsAccess: { token: "test-metrics" },
        usage: { ...app.services.usage, metrics: { ...app.services.usage.metrics, render: rejecting } },
      };
      return createMetricsRouteHandler(async () => services)(
        new Request("http://optstuff.test/api/metrics", { headers: { authorization: "Bearer test-metrics" } }),
      );
    },
  ],
  [
    "health",
    () => {
      const services: Services = { ...app.services, database: { ...app.services.database, ping: rejecting } };
      return createHealthRouteHandler(async () => services)(new Request("http://optstuff.test/api/health"));
    },
  ],
];

describe("a 500 is logged with its stack", () => {
  it.each(routes)("%s route", async (_, call) => {
    lines.length = 0;
    const response = await call();
    expect(response.status).toBeGreaterThanOrEqual(500);
    const body = await response.text();
    for (const hidden of [SECRET, TOKEN, "cannot read properties"]) expect(body).not.toContain(hidden);
    const errors = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === "error");
    expect(errors, lines.join("\n")).toHaveLength(1);
    const line = JSON.stringify(errors[0]);
    // The throw site in this file, as a stack frame; not the message again, and no secret anywhere.
    expect(line).toMatch(/"stack":"[^"]*at [^"]*internal-error-logging\.test\.ts/);
    expect(line).toContain("TypeError: cannot read properties of undefined");
    for (const secret of [SECRET, TOKEN]) expect(line).not.toContain(secret);
  });
});
