import { expect } from "vitest";

/**
 * A dashboard user of a served app (`startServedApp`), as the browser's forms and tRPC client talk to
 * it: sign-up through the auth route (which signs in), then tRPC calls with the session cookie.
 */
export function servedDashboard(baseUrl: string) {
  return {
    /** Signs up a new account (registration must be open); answers its cookie. */
    async signUp(label: string): Promise<string> {
      const response = await fetch(`${baseUrl}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: baseUrl },
        body: JSON.stringify({
          email: `${label}-${Date.now()}@example.com`,
          password: "correct horse battery",
          name: label,
        }),
      });
      expect(response.status, `${label} sign-up`).toBe(200);
      return response.headers
        .getSetCookie()
        .map((c) => c.split(";")[0]!)
        .join("; ");
    },
    /** A mutation as the dashboard posts it; `origin` is the page's (the app's own by default). */
    mutate(cookie: string, procedure: string, input: unknown, origin = baseUrl): Promise<Response> {
      return fetch(`${baseUrl}/api/trpc/${procedure}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin, cookie },
        body: JSON.stringify({ json: input }),
      });
    },
    query(cookie: string, procedure: string, input: unknown): Promise<Response> {
      const search = new URLSearchParams({ input: JSON.stringify({ json: input }) });
      return fetch(`${baseUrl}/api/trpc/${procedure}?${search}`, { headers: { cookie } });
    },
  };
}
