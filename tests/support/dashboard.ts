import { randomBytes } from "node:crypto";
import { createContext } from "@/server/api/context";
import { sessionUser } from "@/server/auth/session-user";
import { dashboardServices } from "@/server/http/trpc-route";
import { createCaller } from "@/server/api/root";
import { createAuthRouteHandler } from "@/server/http/auth-route";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import type { Services } from "@/server/services";

export const DASHBOARD_ORIGIN = "http://127.0.0.1:3000";

/** A random client address, so tests do not share one rate-limit bucket (even in a shared Redis). */
export const randomAddress = () => `198.51.100.${1 + (randomBytes(1)[0]! % 250)}`;

export interface TestUser {
  id: string;
  email: string;
  name: string;
  cookie: string;
  caller: ReturnType<typeof createCaller>;
}

/**
 * Posts to better-auth through the app's own auth route, as the browser would. `address` is the
 * socket's, as scripts/server.mjs stamps it; `forwardedFor` is what the client claims.
 */
export async function authRequest(
  services: Services,
  path: string,
  body: unknown,
  options: { cookie?: string; address?: string; forwardedFor?: string } = {},
): Promise<Response> {
  const handler = createAuthRouteHandler(async () => services);
  return handler(
    new Request(`${DASHBOARD_ORIGIN}/api/auth${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: DASHBOARD_ORIGIN,
        [PEER_ADDRESS_HEADER]: options.address ?? randomAddress(),
        ...(options.forwardedFor && { "x-forwarded-for": options.forwardedFor }),
        ...(options.cookie && { cookie: options.cookie }),
      },
      body: JSON.stringify(body),
    }),
  );
}

/** A GET to better-auth through the app's own auth route (its options endpoints, for one). */
export async function authGet(
  services: Services,
  path: string,
  options: { cookie?: string; address?: string } = {},
): Promise<Response> {
  const handler = createAuthRouteHandler(async () => services);
  return handler(
    new Request(`${DASHBOARD_ORIGIN}/api/auth${path}`, {
      headers: {
        [PEER_ADDRESS_HEADER]: options.address ?? randomAddress(),
        ...(options.cookie && { cookie: options.cookie }),
      },
    }),
  );
}

export function cookieFrom(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .filter((c) => !c.endsWith("="))
    .join("; ");
}

export async function signUp(services: Services, label = "user"): Promise<TestUser> {
  const email = `${label}-${randomBytes(4).toString("hex")}@example.com`;
  const name = label[0]!.toUpperCase() + label.slice(1);
  const response = await authRequest(services, "/sign-up/email", { email, password: "correct horse battery", name });
  if (response.status !== 200) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  const cookie = cookieFrom(response);
  const { user } = (await response.json()) as { user: { id: string } };
  return { id: user.id, email, name, cookie, caller: await callerFor(services, cookie) };
}

/** Where the callers' requests say they come from: what the audit log records for them. */
export const CALLER_ORIGIN = { ip: "203.0.113.9", userAgent: "optstuff-tests/1.0" };

export async function callerFor(services: Services, cookie: string | null) {
  const headers = new Headers(cookie ? { cookie } : {});
  const user = await sessionUser(await services.dashboard.auth(), headers);
  return createCaller(createContext(dashboardServices(services), user, CALLER_ORIGIN));
}
