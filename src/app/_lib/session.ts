import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { sessionUser } from "@/server/api/context";
import type { SessionUser } from "@/server/api/trpc";
import { getServices } from "@/server/services";

export async function currentUser(): Promise<SessionUser | null> {
  return sessionUser(await getServices(), await headers());
}

/** Pages behind sign-in send a signed-out visitor to it and back here afterwards. */
export async function requireUser(returnTo: string): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect(`/sign-in?next=${encodeURIComponent(returnTo)}`);
  return user;
}

/** Only same-site paths are followed after sign-in (no open redirect). */
export function safeNext(next: string | string[] | undefined): string {
  const value = Array.isArray(next) ? next[0] : next;
  return value && value.startsWith("/") && !value.startsWith("//") ? value : "/";
}
