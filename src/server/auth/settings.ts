import { z } from "zod";
import { slugSchema } from "@/lib/schemas/names";
import { choice, flag, group, parsed, text, type ValuesOf } from "@/server/config/setting";
import { emailDomains } from "@/server/tenancy/settings";
import type { OAuthCredentials } from "./create-auth";
import type { OidcConfig } from "./oidc";

/**
 * The provider's issuer: https, since its discovery document names the keys ID tokens are checked
 * against (plain http is taken on loopback only, for a provider on the same machine).
 */
const issuerUrl = z
  .url({ error: "Enter the provider's issuer URL, such as https://login.example.com" })
  .optional()
  .refine((value) => value === undefined || isHttpsOrLoopback(new URL(value)), {
    error: "The issuer must be https (http only on 127.0.0.1, ::1 or localhost)",
  });

function isHttpsOrLoopback(url: URL): boolean {
  return (
    url.protocol === "https:" ||
    (url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname))
  );
}

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
  OPTSTUFF_OIDC_ISSUER: parsed(issuerUrl, {
    doc: "Single sign-on with an OpenID Connect provider: its issuer URL (with the client id and secret); the callback is `{public base URL}/api/auth/callback/oidc`.",
  }),
  OPTSTUFF_OIDC_CLIENT_ID: text({ doc: "Single sign-on's client id at the provider." }),
  OPTSTUFF_OIDC_CLIENT_SECRET: text({ doc: "Single sign-on's client secret.", secret: true }),
  OPTSTUFF_OIDC_EMAIL_DOMAINS: parsed(emailDomains, {
    defaultText: "any",
    doc: "E-mail domains (comma-separated) whose provider-verified addresses may sign in with single sign-on; unset: any verified address.",
  }),
  OPTSTUFF_OIDC_TEAM: parsed(slugSchema.optional(), {
    doc: "The team (its slug) an account made by single sign-on joins; unset: it makes a team of its own.",
  }),
  OPTSTUFF_OIDC_ROLE: choice(["member", "admin"], {
    default: "member",
    doc: "The role an account made by single sign-on gets in `OPTSTUFF_OIDC_TEAM`.",
  }),
  OPTSTUFF_REQUIRE_SECOND_FACTOR: flag({
    doc: "Every account must set up a second factor before it can open any team (teams can also require it alone).",
  }),
});

export type AuthValues = ValuesOf<typeof authSettings>;

export const oauthOf = (v: AuthValues): { github: OAuthCredentials | null; google: OAuthCredentials | null } => ({
  github: credentials(v.GITHUB_CLIENT_ID, v.GITHUB_CLIENT_SECRET),
  google: credentials(v.GOOGLE_CLIENT_ID, v.GOOGLE_CLIENT_SECRET),
});

export const oidcOf = (v: AuthValues): OidcConfig | null =>
  v.OPTSTUFF_OIDC_ISSUER && v.OPTSTUFF_OIDC_CLIENT_ID && v.OPTSTUFF_OIDC_CLIENT_SECRET
    ? {
        issuer: v.OPTSTUFF_OIDC_ISSUER.replace(/\/+$/, ""),
        clientId: v.OPTSTUFF_OIDC_CLIENT_ID,
        clientSecret: v.OPTSTUFF_OIDC_CLIENT_SECRET,
        emailDomains: v.OPTSTUFF_OIDC_EMAIL_DOMAINS,
        team: v.OPTSTUFF_OIDC_TEAM ? { slug: v.OPTSTUFF_OIDC_TEAM, role: v.OPTSTUFF_OIDC_ROLE } : null,
      }
    : null;

function credentials(clientId: string | undefined, clientSecret: string | undefined): OAuthCredentials | null {
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}
