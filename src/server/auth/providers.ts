import type { OAuthCredentials } from "./create-auth";

/**
 * Which sign-in buttons the pages show. Apart from create-auth.ts, which loads better-auth: the pages
 * ask this of every request, and better-auth is loaded only by the first request that signs in.
 */
export function enabledProviders(options: {
  github: OAuthCredentials | null;
  google: OAuthCredentials | null;
}): Array<"github" | "google"> {
  return (["github", "google"] as const).filter((name) => options[name] !== null);
}
