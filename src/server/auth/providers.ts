import type { OAuthCredentials } from "./create-auth";

/** The sign-in buttons a page can show: GitHub, Google, and the company's OpenID Connect provider. */
export type SignInProvider = "github" | "google" | "oidc";

/**
 * Which sign-in buttons the pages show. Apart from create-auth.ts, which loads better-auth: the pages
 * ask this of every request, and better-auth is loaded only by the first request that signs in.
 */
export function enabledProviders(options: Record<SignInProvider, OAuthCredentials | object | null>): SignInProvider[] {
  return (["oidc", "github", "google"] as const).filter((name) => options[name] !== null);
}
