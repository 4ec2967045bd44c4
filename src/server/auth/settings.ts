import { flag, group, text, type ValuesOf } from "@/server/config/setting";
import type { OAuthCredentials } from "./create-auth";

/** How team admins sign in to the dashboard. Each provider's button appears only with both of its values. */
export const authSettings = group("Dashboard sign-in", {
  OPTSTUFF_TRUSTED_ORIGINS: text({
    doc: "Further origins the dashboard accepts sign-ins from (comma-separated), besides the public base URL.",
  }),
  GITHUB_CLIENT_ID: text({
    doc: "GitHub sign-in, with its secret; the callback is `{public base URL}/api/auth/callback/github`.",
  }),
  GITHUB_CLIENT_SECRET: text({ doc: "GitHub sign-in's client secret.", secret: true }),
  GOOGLE_CLIENT_ID: text({
    doc: "Google sign-in, with its secret; the callback is `{public base URL}/api/auth/callback/google`.",
  }),
  GOOGLE_CLIENT_SECRET: text({ doc: "Google sign-in's client secret.", secret: true }),
  OPTSTUFF_REQUIRE_SECOND_FACTOR: flag({
    doc: "Every account must set up a second factor before it can open any team (teams can also require it alone).",
  }),
});

export type AuthValues = ValuesOf<typeof authSettings>;

export const oauthOf = (v: AuthValues): { github: OAuthCredentials | null; google: OAuthCredentials | null } => ({
  github: credentials(v.GITHUB_CLIENT_ID, v.GITHUB_CLIENT_SECRET),
  google: credentials(v.GOOGLE_CLIENT_ID, v.GOOGLE_CLIENT_SECRET),
});

function credentials(clientId: string | undefined, clientSecret: string | undefined): OAuthCredentials | null {
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}
