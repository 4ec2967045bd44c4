import type { Auth } from "./create-auth";

/** Who is signed in, as the dashboard shows it. */
export interface SessionUser {
  id: string;
  name: string;
  email: string;
  /** Sign-in asks this account for a code after its password (teams may require it). */
  secondFactor: boolean;
}

/** The session user from the auth cookie (better-auth checks it against the session table). */
export async function sessionUser(auth: Auth, headers: Headers): Promise<SessionUser | null> {
  const session = await auth.api.getSession({ headers });
  if (!session) return null;
  const { id, name, email, twoFactorEnabled } = session.user;
  return { id, name, email, secondFactor: twoFactorEnabled === true };
}
