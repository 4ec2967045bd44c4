import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authRequest, callerFor, cookieFrom, signUp } from "../../support/dashboard";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

describe("accounts", () => {
  it("signs up, gets a personal team pending onboarding, and names it", async () => {
    // The instance's first account adopts "acme", which the test app made with no owner, and starts
    // there with no team of its own (first-steps.test.ts); the next account gets one.
    const first = await signUp(app.services, "first");
    expect((await first.caller.account.me()).teams.map((t) => [t.slug, t.role])).toEqual([["acme", "owner"]]);
    const alice = await signUp(app.services, "alice");
    const me = await alice.caller.account.me();
    expect(me.user.email).toBe(alice.email);
    expect(me.teams).toHaveLength(1);
    expect(me.teams.map((t) => t.role)).toEqual(["owner"]);
    expect(me.pendingTeamSlug).toBe(me.teams[0]!.slug);
    expect(me.pendingTeamName).toBe(me.teams[0]!.name);

    const team = await alice.caller.account.completeOnboarding({
      name: "Alice Co",
      slug: `alice-co-${alice.id.slice(0, 6).toLowerCase()}`,
    });
    const after = await alice.caller.account.me();
    expect(after.pendingTeamSlug).toBeNull();
    expect(after.pendingTeamName).toBeNull();
    expect(after.teams.map((t) => t.slug)).toEqual([team.slug]);
  });
});

describe("sign-in, sign-out and the auth endpoints' guards", () => {
  it("signs in with the password, refuses a wrong one, and signs out", async () => {
    const bob = await signUp(app.services, "bob");
    const wrong = await authRequest(app.services, "/sign-in/email", { email: bob.email, password: "not the password" });
    expect(wrong.status).toBe(401);
    const right = await authRequest(app.services, "/sign-in/email", {
      email: bob.email,
      password: "correct horse battery",
    });
    expect(right.status).toBe(200);
    const cookie = cookieFrom(right);
    expect((await (await callerFor(app.services, cookie)).account.me()).user.id).toBe(bob.id);

    const out = await authRequest(app.services, "/sign-out", {}, { cookie });
    expect(out.status).toBe(200);
    await expect((await callerFor(app.services, cookie)).account.me()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("sets the session cookie HttpOnly and SameSite=Lax", async () => {
    const response = await authRequest(app.services, "/sign-up/email", {
      email: "cookie-check@example.com",
      password: "correct horse battery",
      name: "C",
    });
    const session = response.headers.getSetCookie().find((c) => c.includes("session_token"));
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
  });

  it("refuses a short password and says how long it must be", async () => {
    const response = await authRequest(app.services, "/sign-up/email", {
      email: "short@example.com",
      password: "short",
      name: "S",
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/short/i);
  });

  it("refuses a sign-in posted from a foreign origin", async () => {
    const bob = await signUp(app.services, "origin");
    const handler = (await import("@/server/http/auth-route")).createAuthRouteHandler(async () => app.services);
    const response = await handler(
      new Request("http://127.0.0.1:3000/api/auth/sign-in/email", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://evil.example", cookie: bob.cookie },
        body: JSON.stringify({ email: bob.email, password: "correct horse battery" }),
      }),
    );
    expect(response.status).toBe(403);
  });

  it("rate-limits sign-in attempts per client address (10 a minute), not globally", async () => {
    await clearOfWindowEdge();
    const address = "203.0.113.77";
    const statuses: number[] = [];
    // One account per attempt (fresh in a shared Redis too), so that its failure window plays no part.
    const stamp = Date.now().toString(36);
    const nobody = (i: number) => `nobody-${i}-${stamp}@example.com`;
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (
          await authRequest(
            app.services,
            "/sign-in/email",
            { email: nobody(i), password: "whatever-password" },
            { address },
          )
        ).status,
      );
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    const elsewhere = await authRequest(
      app.services,
      "/sign-in/email",
      { email: nobody(0), password: "whatever-password" },
      { address: "203.0.113.78" },
    );
    expect(elsewhere.status).toBe(401);
  });

  it("answers UNAUTHORIZED to every protected procedure without a session", async () => {
    const anonymous = await callerFor(app.services, null);
    await expect(anonymous.account.me()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(anonymous.team.get({ teamSlug: "acme" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("configuration-dependent sign-in", () => {
  it("offers GitHub sign-in only when its credentials are set, redirecting to GitHub with our callback", async () => {
    expect(app.services.dashboard.authProviders).toEqual([]);
    const refused = await authRequest(app.services, "/sign-in/social", { provider: "github", callbackURL: "/" });
    expect(refused.status).toBeGreaterThanOrEqual(400);

    const withGithub = await createTestApp({
      env: { GITHUB_CLIENT_ID: "gh-client", GITHUB_CLIENT_SECRET: "gh-secret" },
    });
    try {
      expect(withGithub.services.dashboard.authProviders).toEqual(["github"]);
      const response = await authRequest(withGithub.services, "/sign-in/social", {
        provider: "github",
        callbackURL: "/",
      });
      expect(response.status).toBe(200);
      const { url } = (await response.json()) as { url: string };
      const redirect = new URL(url);
      expect(redirect.origin).toBe("https://github.com");
      expect(redirect.searchParams.get("client_id")).toBe("gh-client");
      expect(redirect.searchParams.get("redirect_uri")).toBe("http://127.0.0.1:3000/api/auth/callback/github");
    } finally {
      await withGithub.close();
    }
  });

  it("marks the session cookie Secure when the dashboard is served over https", async () => {
    const secure = await createTestApp({ env: { OPTSTUFF_PUBLIC_BASE_URL: "https://dash.example" } });
    try {
      const handler = (await import("@/server/http/auth-route")).createAuthRouteHandler(async () => secure.services);
      const response = await handler(
        new Request("https://dash.example/api/auth/sign-up/email", {
          method: "POST",
          headers: { "content-type": "application/json", origin: "https://dash.example" },
          body: JSON.stringify({ email: "secure@example.com", password: "correct horse battery", name: "S" }),
        }),
      );
      expect(response.status).toBe(200);
      const session = response.headers.getSetCookie().find((c) => c.includes("session_token"));
      expect(session).toMatch(/^__Secure-/);
      expect(session).toMatch(/;\s*Secure/i);
    } finally {
      await secure.close();
    }
  });
});

describe("display names", () => {
  it("are bounded like the dashboard's other names, at sign-up and when changed", async () => {
    const long = await authRequest(app.services, "/sign-up/email", {
      email: "long-name@example.com",
      password: "correct horse battery",
      name: "x".repeat(60_000),
    });
    expect(long.status).toBe(400);
    expect(((await long.json()) as { message: string }).message).toBe("Name must have at most 80 characters");
    const carol = await signUp(app.services, "carol");
    const renamed = (name: string) => authRequest(app.services, "/update-user", { name }, { cookie: carol.cookie });
    expect((await renamed("y".repeat(81))).status).toBe(400);
    expect((await renamed("   ")).status).toBe(400);
    expect((await renamed("C".repeat(80))).status).toBe(200);
    expect((await (await callerFor(app.services, carol.cookie)).account.me()).user.name).toBe("C".repeat(80));
  });
});
