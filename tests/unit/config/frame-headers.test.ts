import { describe, expect, it } from "vitest";
import nextConfig from "../../../next.config.mjs";

/**
 * next.config.mjs's headers as Next applies them: validated and compiled by Next's own route code
 * (what `next build` and `next start` run), then matched against paths. tests/browser/auth-surface
 * checks the same headers on the built app's responses.
 */
async function headersFor(pathname: string): Promise<Record<string, string>> {
  const { default: loadCustomRoutes } = (await import("next/dist/lib/load-custom-routes.js")) as unknown as {
    default: (config: unknown) => Promise<{ headers: unknown[] }>;
  };
  const { buildCustomRoute } = (await import("next/dist/server/lib/router-utils/filesystem.js")) as unknown as {
    buildCustomRoute: (
      type: string,
      item: unknown,
      basePath?: string,
      caseSensitive?: boolean,
    ) => { match: (path: string) => unknown; headers: Array<{ key: string; value: string }> };
  };
  const { defaultConfig } = (await import("next/dist/server/config-shared.js")) as unknown as {
    defaultConfig: Record<string, unknown>;
  };
  const routes = await loadCustomRoutes({ ...defaultConfig, ...nextConfig });
  const found: Record<string, string> = {};
  for (const item of routes.headers) {
    const route = buildCustomRoute("header", item, "", false);
    if (route.match(pathname)) for (const { key, value } of route.headers) found[key.toLowerCase()] = value;
  }
  return found;
}

describe("framing of the dashboard", () => {
  it.each([
    "/",
    "/sign-in",
    "/sign-up",
    "/onboarding",
    "/invite/abc123",
    "/t/acme",
    "/t/acme/p/blog/keys",
    "/teams/new",
  ])("forbids framing %s (CSP frame-ancestors and X-Frame-Options)", async (pathname) => {
    const headers = await headersFor(pathname);
    expect(headers["content-security-policy"]).toBe("frame-ancestors 'none'");
    expect(headers["x-frame-options"]).toBe("DENY");
  });

  it.each(["/api/v1/blog/w_40/local/photo.jpg", "/api/trpc/account.me", "/api/auth/get-session", "/api/health"])(
    "leaves the API's headers to the routes themselves (%s; the image API's are the contract's)",
    async (pathname) => {
      expect(await headersFor(pathname)).toEqual({});
    },
  );
});
