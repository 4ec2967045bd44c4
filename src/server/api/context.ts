import { randomUUID } from "node:crypto";
import type { Services } from "@/server/services";
import type { Context, SessionUser } from "./trpc";

/** The session user from the auth cookie (better-auth checks it against the session table). */
export async function sessionUser(services: Services, headers: Headers): Promise<SessionUser | null> {
  const session = await services.auth.api.getSession({ headers });
  if (!session) return null;
  return { id: session.user.id, name: session.user.name, email: session.user.email };
}

export async function createContext(services: Services, headers: Headers): Promise<Context> {
  return { services, user: await sessionUser(services, headers), requestId: randomUUID() };
}
