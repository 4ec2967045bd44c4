import type { Auth } from "./create-auth";

/** Who is signed in, as the dashboard shows it. */
export interface SessionUser {
  id: string;
  name: string;
  email: string;
}

/** The session user from the auth cookie (better-auth checks it against the session table). */
export async function sessionUser(auth: Auth, headers: Headers): Promise<SessionUser | null> {
  const session = await auth.api.getSession({ headers });
  if (!session) return null;
  return { id: session.user.id, name: session.user.name, email: session.user.email };
}
