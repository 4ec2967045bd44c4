import { signUrl } from "@optstuff/client";
import type { Signer } from "./servers";

/**
 * An account of the running app (its registration open) with `teams` teams, each holding one project
 * on `sourceHost` and a key at the highest limits an admin may set: one URL signer per team, made
 * through the dashboard's own routes as a person would make them.
 */
export async function accountWithTeams(
  base: string,
  label: string,
  teams: number,
  sourceHost: string,
): Promise<Signer[]> {
  const signedUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email: `${label}-${Date.now()}@bench.test`, password: "bench horse battery", name: label }),
  });
  if (signedUp.status !== 200) throw new Error(`sign-up of ${label}: ${signedUp.status} ${await signedUp.text()}`);
  const cookie = signedUp.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");
  const call = async <T>(procedure: string, input: unknown): Promise<T> => {
    const response = await fetch(`${base}/api/trpc/${procedure}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base, cookie },
      body: JSON.stringify({ json: input }),
    });
    if (response.status !== 200) throw new Error(`${procedure}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { result: { data: { json: T } } }).result.data.json;
  };
  const signers: Signer[] = [];
  for (let i = 0; i < teams; i++) {
    const slug = `${label}-${i}-${Date.now().toString(36)}`;
    await call(i === 0 ? "account.completeOnboarding" : "account.createTeam", { name: slug, slug });
    await call("project.create", { teamSlug: slug, name: "Site", slug: "site", allowedSourceHosts: [sourceHost] });
    const key = await call<{ publicKey: string; secretKey: string }>("apiKey.create", {
      teamSlug: slug,
      projectSlug: "site",
      name: "bench",
      expiresAt: null,
      rateLimitPerMinute: 100_000,
      rateLimitPerDay: 100_000_000,
    });
    signers.push((operations, source) => signUrl({ baseUrl: base, projectSlug: "site", ...key, operations, source }));
  }
  return signers;
}
