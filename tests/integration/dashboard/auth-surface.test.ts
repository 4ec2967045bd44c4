import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTrpcRouteHandler } from "@/server/http/trpc-route";
import { createAuthRouteHandler } from "@/server/http/auth-route";
import { SIGN_IN_FAILURES } from "@/server/auth/sign-in-failures";
import { WINDOW_MS } from "@/server/coordination/windows";
import { createCronRouteHandler } from "@/server/http/cron-route";
import { BODY_LIMITS } from "@/server/wire/body-limit";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { createTestApp, type TestApp } from "../../support/app";
import { authRequest, DASHBOARD_ORIGIN, randomAddress, signUp, type TestUser } from "../../support/dashboard";
import { clearOfWindowEdge } from "../../support/clock";

/**
 * The dashboard's auth surface through the real route handlers: which address a limit counts, the
 * per-account failure window, and request bodies on every non-image route.
 */
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const email = (label: string) => `${label}-${randomBytes(4).toString("hex")}@example.com`;
const PASSWORD = "correct horse battery"; // what signUp() sets

describe("the client address of sign-in attempts", () => {
  it("hits the per-address sign-in limit although each attempt claims another X-Forwarded-For", async () => {
    await clearOfWindowEdge();
    // Outside randomAddress()'s pool: the address this test exhausts must not be drawn by later tests.
    const socket = "198.51.100.253";
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      // A new account each time: only the per-address limit can refuse these.
      const response = await authRequest(
        app.services,
        "/sign-in/email",
        { email: email("nobody"), password: "whatever-password" },
        { address: socket, forwardedFor: `198.51.100.${i + 1}` },
      );
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
  });
});

describe("the per-account sign-in failure window", () => {
  let owner: TestUser;
  beforeAll(async () => {
    owner = await signUp(app.services, "owner");
  });

  it("refuses the account after its failures from many addresses, the right password included, and no other account", async () => {
    await clearOfWindowEdge(WINDOW_MS[SIGN_IN_FAILURES.window], 20_000);
    const other = await signUp(app.services, "other");
    for (let i = 0; i < SIGN_IN_FAILURES.max; i++) {
      const wrong = await authRequest(app.services, "/sign-in/email", {
        email: owner.email,
        password: `wrong password ${i}`,
      });
      expect(wrong.status).toBe(401);
    }
    const locked = await authRequest(app.services, "/sign-in/email", {
      email: owner.email.toUpperCase(),
      password: PASSWORD,
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await locked.json()) as { code: string }).code).toBe("RATE_LIMITED");
    expect((await authRequest(app.services, "/sign-in/email", { email: other.email, password: PASSWORD })).status).toBe(
      200,
    );
  }, 60_000);

  it("cannot be walked around by another spelling of the path", async () => {
    for (const path of ["/sign-in/email/", "/sign-in//email", "/sign-in/%65mail", "/SIGN-IN/EMAIL"]) {
      const response = await authRequest(app.services, path, { email: owner.email, password: "yet another guess" });
      expect([404, 429], path).toContain(response.status);
    }
  });

  it("does not count successful sign-ins", async () => {
    // A success gives its token back to the current window; one taken just before an edge is weighed
    // into the next window all the same, so twelve sign-ins straddling a quarter hour could be refused.
    await clearOfWindowEdge(WINDOW_MS[SIGN_IN_FAILURES.window], 20_000);
    const user = await signUp(app.services, "busy");
    for (let i = 0; i < SIGN_IN_FAILURES.max + 2; i++) {
      expect(
        (await authRequest(app.services, "/sign-in/email", { email: user.email, password: PASSWORD })).status,
      ).toBe(200);
    }
  }, 60_000);

  it("takes JSON only on sign-in, so no body format escapes the account's count", async () => {
    const user = await signUp(app.services, "form");
    const response = await createAuthRouteHandler(async () => app.services)(
      new Request(`${DASHBOARD_ORIGIN}/api/auth/sign-in/email`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: DASHBOARD_ORIGIN,
          [PEER_ADDRESS_HEADER]: randomAddress(),
        },
        body: new URLSearchParams({ email: user.email, password: "a guess" }),
      }),
    );
    expect(response.status).toBe(415);
    expect(((await response.json()) as { code: string }).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});

/** A body that counts what the handler pulled from it: `total` bytes in 16 KB chunks. */
function countedBody(total: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0;
  const chunk = new Uint8Array(16 * 1024).fill(0x7b);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => sent };
}

const routes = {
  auth: {
    url: `${DASHBOARD_ORIGIN}/api/auth/sign-in/email`,
    handler: () => createAuthRouteHandler(async () => app.services),
  },
  trpc: {
    url: `${DASHBOARD_ORIGIN}/api/trpc/account.completeOnboarding`,
    handler: () => createTrpcRouteHandler(async () => app.services),
  },
  cron: {
    url: `${DASHBOARD_ORIGIN}/api/cron/flush-usage-buffer`,
    handler: () => createCronRouteHandler(async () => app.services, "flush-usage-buffer"),
  },
} as const;

/** POSTs a 64 MB JSON stream that counts what was pulled from it to one of the routes above. */
async function postBody(name: keyof typeof routes, headers: Record<string, string> = {}) {
  const route = routes[name];
  const body = countedBody(64 * 1024 * 1024);
  const response = await route.handler()(
    new Request(route.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...headers,
        origin: DASHBOARD_ORIGIN,
        [PEER_ADDRESS_HEADER]: randomAddress(),
      },
      body: body.stream,
      duplex: "half",
    } as RequestInit),
  );
  return { body, response };
}

describe("request bodies on the non-image routes", () => {
  it.each(Object.keys(routes) as Array<keyof typeof routes>)(
    "%s: refuses a declared length over its cap with 413, before reading",
    async (name) => {
      const { body, response } = await postBody(name, { "content-length": String(64 * 1024 * 1024) });
      expect(response.status).toBe(413);
      expect(response.headers.get("connection")).toBe("close");
      expect(((await response.json()) as { code: string }).code).toBe("BODY_TOO_LARGE");
      // The stream's first chunk may be buffered by the runtime; nothing past it is read.
      expect(body.pulled()).toBeLessThanOrEqual(16 * 1024 * 2);
    },
  );

  it.each(Object.keys(routes) as Array<keyof typeof routes>)(
    "%s: stops reading a body without a length at its cap, with 413",
    async (name) => {
      const { body, response } = await postBody(name);
      expect(response.status).toBe(413);
      expect(((await response.json()) as { code: string }).code).toBe("BODY_TOO_LARGE");
      expect(body.pulled()).toBeLessThanOrEqual(BODY_LIMITS[name] + 3 * 16 * 1024);
    },
  );

  it("still serves bodies within the cap without a declared length", async () => {
    const user = await signUp(app.services, "chunked");
    const json = new TextEncoder().encode(JSON.stringify({ email: user.email, password: PASSWORD }));
    const response = await routes.auth.handler()(
      new Request(routes.auth.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: DASHBOARD_ORIGIN,
          [PEER_ADDRESS_HEADER]: randomAddress(),
        },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(json.subarray(0, 10));
            controller.enqueue(json.subarray(10));
            controller.close();
          },
        }),
        duplex: "half",
      } as RequestInit),
    );
    expect(response.status).toBe(200);
  });

  it("answers a multipart post to tRPC with 415, not a 500", async () => {
    const user = await signUp(app.services, "multipart");
    const form = new FormData();
    form.set("name", "Team");
    form.set("slug", `team-${randomBytes(3).toString("hex")}`);
    const response = await routes.trpc.handler()(
      new Request(routes.trpc.url, {
        method: "POST",
        headers: { cookie: user.cookie, origin: DASHBOARD_ORIGIN },
        body: form,
      }),
    );
    expect(response.status).toBe(415);
    expect(((await response.json()) as { code: string }).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});
