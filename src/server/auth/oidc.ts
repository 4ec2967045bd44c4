import type { TeamRole } from "@/lib/schemas/team";

/** Sign-in with the company's OpenID Connect provider (OPTSTUFF_OIDC_*), when its three settings are given. */
export interface OidcConfig {
  /** The issuer URL; its discovery document is `{issuer}/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Verified addresses at these domains may sign in; empty: any verified address. */
  emailDomains: readonly string[];
  /** The team a new account joins, with this role; null: it makes its own, as any new account. */
  team: { slug: string; role: Exclude<TeamRole, "owner"> } | null;
}

/** better-auth's id for the provider: its callback is `/api/auth/callback/oidc`. */
export const OIDC_PROVIDER_ID = "oidc";

/**
 * Why the provider's answer does not sign in, as better-auth's `validateUserInfo` returns it (the
 * callback sends the browser to the sign-in page with `?error=<code>`); null when it may.
 */
export function oidcRefusal(
  config: Pick<OidcConfig, "emailDomains">,
  user: { email?: unknown; emailVerified?: unknown },
): { error: string; errorDescription: string } | null {
  if (user.emailVerified !== true)
    return { error: "email_not_verified", errorDescription: "The provider has not verified this address" };
  const email = String(user.email ?? "").toLowerCase();
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (config.emailDomains.length > 0 && !config.emailDomains.includes(domain))
    return { error: "email_domain_not_allowed", errorDescription: "This address's domain may not sign in here" };
  return null;
}
