import { type Env } from "@/env";
import { isProduction, previewOrigins } from "@/server/config/platform";

/** Origins allowed to sign in besides the public base URL's: the operator's, a preview's, loopback's in development. */
export function trustedOriginsOf(env: Env): string[] {
  return [
    ...(env.OPTSTUFF_TRUSTED_ORIGINS ?? "")
      .split(",")
      .map((origin) => origin.trim())
      .filter(Boolean),
    // A preview answers at its deployment's host and its branch's.
    ...previewOrigins(env),
    // The embedded default answers on loopback under either name.
    ...(isProduction(env) ? [] : [`http://localhost:${env.PORT}`, `http://127.0.0.1:${env.PORT}`]),
  ];
}
