// The dashboard's one door to the services, the environment and the session: never in a client bundle.
// (Only App Router modules carry the marker: the image API's Pages route, the CLI and the tests load
// src/server outside React's server layer, where `server-only` throws; eslint's
// optstuff/client-imports keeps client components to types from src/server instead.)
import "server-only";
import { headers } from "next/headers";
import { cache } from "react";
import { redirect } from "next/navigation";
import { env } from "@/env";
import { publicBaseUrl } from "@/server/config/platform";
import { safeNext as sameSiteNext } from "@/lib/safe-next";
import { sessionUser, type SessionUser } from "@/server/auth/session-user";
import { getServices } from "@/server/services";

/** Once per request: the layouts' guard and the procedures' context read the same session. */
export const currentUser = cache(async (): Promise<SessionUser | null> => {
  return sessionUser(await (await getServices()).dashboard.auth(), await headers());
});

/** Pages behind sign-in send a signed-out visitor to it and back here afterwards. */
export async function requireUser(returnTo: string): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect(`/sign-in?next=${encodeURIComponent(returnTo)}`);
  return user;
}

/**
 * Only paths on this site are followed after sign-in (no open redirect): resolved against the public
 * origin, as src/lib/safe-next.ts explains. The client components that push `next` receive it from here.
 */
export function safeNext(next: string | string[] | undefined): string {
  return sameSiteNext(next, publicBaseUrl(env()));
}
