import { describe, expect, it } from "vitest";
import { createImageLoader, createSigningRoute, type SigningRouteOptions } from "../../../packages/client/src/next";
import { verifySignature, signaturePayload } from "@/server/signing";

const keys = {
  baseUrl: "https://img.example.com",
  projectSlug: "shop",
  publicKey: "pk_AAAAAAAAAAAAAAAAAAAAAA",
  secretKey: "sk_test",
};
const route = createSigningRoute({ ...keys, allowedHosts: ["cdn.example.com"], widths: [640, 828, 1080] });
const ask = (query: string) => route(new Request(`https://app.example.com/api/image?${query}`));

describe("next/image loader", () => {
  it("points at the signing route with src, width and quality, and no secret", () => {
    const loader = createImageLoader();
    const url = loader({ src: "https://cdn.example.com/a b.jpg", width: 828, quality: 70 });
    expect(url).toBe("/api/image?src=https%3A%2F%2Fcdn.example.com%2Fa+b.jpg&w=828&q=70");
    expect(createImageLoader({ route: "/img" })({ src: "https://cdn.example.com/a.jpg", width: 640 })).toBe(
      "/img?src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640",
    );
  });
});

describe("signing route", () => {
  it("answers 302 to a URL the server verifies, cacheable for at most half its life", async () => {
    const before = Date.now();
    const response = await ask("src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=828&q=70");
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(location.pathname).toBe("/api/v1/shop/w_828%2Cq_70%2Cf_auto/https%3A/cdn.example.com/a.jpg");
    const exp = Number(location.searchParams.get("exp"));
    expect(exp * 1000 - before).toBeGreaterThanOrEqual(86_400_000);
    expect(
      verifySignature(
        keys.secretKey,
        signaturePayload("w_828,q_70,f_auto", "https://cdn.example.com/a.jpg", exp),
        location.searchParams.get("sig")!,
      ),
    ).toBe(true);
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get("cache-control")!)?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge * 1000).toBeLessThanOrEqual((exp * 1000 - before) / 2 + 1000);
  });

  it("signs a box with fit when an adapter sends h and fit", async () => {
    const location = (await ask("src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640&h=480&fit=contain&q=60")).headers.get(
      "location",
    )!;
    expect(location).toContain("/w_640%2Ch_480%2Cfit_contain%2Cq_60%2Cf_auto/");
  });

  it("defaults the quality to 75 like next/image", async () => {
    const location = (await ask("src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640")).headers.get("location")!;
    expect(location).toContain("/w_640%2Cq_75%2Cf_auto/");
  });

  it("fetches a path of the site from siteUrl, and still checks it", async () => {
    const site = createSigningRoute({ ...keys, allowedHosts: [], siteUrl: "https://www.example.com/" });
    const location = new URL(
      (await site(new Request("https://app.example.com/api/image?src=%2Fphotos%2Fa%20b.jpg&w=640"))).headers.get(
        "location",
      )!,
    );
    expect(location.pathname).toBe("/api/v1/shop/w_640%2Cq_75%2Cf_auto/https%3A/www.example.com/photos/a%2520b.jpg");
    const foreign = await site(
      new Request("https://app.example.com/api/image?src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640"),
    );
    expect(foreign.status).toBe(400);
    const protocolRelative = await site(
      new Request("https://app.example.com/api/image?src=%2F%2Fevil.example.net%2Fa.jpg&w=640"),
    );
    expect(((await protocolRelative.json()) as { error: string }).error).toMatch(/absolute/);
  });

  it("never signs itself: a path of the site with a query, or the route's own path, is refused", async () => {
    const site = createSigningRoute({ ...keys, allowedHosts: [], siteUrl: "https://www.example.com" });
    for (const src of ["/api/image?src=/photo.jpg&w=64", "/api/image", "/api/./image", "/photo.jpg#x"]) {
      const response = await site(
        new Request(`https://www.example.com/api/image?src=${encodeURIComponent(src)}&w=640`),
      );
      expect(response.status, src).toBe(400);
    }
  });

  it("matches hosts as the URL parser writes them, with the default port only unless a port is listed", async () => {
    const ported = createSigningRoute({ ...keys, allowedHosts: ["CDN.example.com", "img.example.com:8443"] });
    const location = async (src: string) => {
      const response = await ported(
        new Request(`https://app.example.com/api/image?src=${encodeURIComponent(src)}&w=640`),
      );
      return response.status === 302 ? new URL(response.headers.get("location")!).pathname : response.status;
    };
    expect(await location("https://cdn.EXAMPLE.com:443/a/../b.jpg")).toBe(
      "/api/v1/shop/w_640%2Cq_75%2Cf_auto/https%3A/cdn.example.com/b.jpg",
    );
    expect(await location("https://img.example.com:8443/a.jpg")).toBe(
      "/api/v1/shop/w_640%2Cq_75%2Cf_auto/https%3A/img.example.com%3A8443/a.jpg",
    );
    for (const refused of [
      "https://cdn.example.com:22/a.jpg",
      "https://img.example.com/a.jpg",
      "https://cdn.example.com./a.jpg",
      "https://cdn.example.com/a//b.jpg",
    ]) {
      expect(await location(refused), refused).toBe(400);
    }
    expect(() => createSigningRoute({ ...keys, allowedHosts: ["https://cdn.example.com"] })).toThrow(/not a host/);
    expect(() => createSigningRoute({ ...keys, allowedHosts: ["cdn.example.com/images"] })).toThrow(/not a host/);
  });

  it.each([
    ["missing", undefined],
    ["null", null],
    ["a single host instead of a list", "cdn.example.com"],
  ])("refuses at creation an allowedHosts %s, naming the option and what goes in it", (_, allowedHosts) => {
    // What a JavaScript caller, with no types to stop it, can pass.
    const create = () => createSigningRoute({ ...keys, allowedHosts } as unknown as SigningRouteOptions);
    expect(create).toThrow(TypeError);
    expect(create).toThrow(/allowedHosts.*\["cdn\.example\.com"\]/);
  });

  it("refuses at creation no options at all, or a host that is not a string", () => {
    expect(() => createSigningRoute(undefined as unknown as SigningRouteOptions)).toThrow(/allowedHosts/);
    expect(() => createSigningRoute({ ...keys, allowedHosts: [42] } as unknown as SigningRouteOptions)).toThrow(
      /allowedHosts: 42 is not a host/,
    );
  });

  it.each([
    ["src=https%3A%2F%2Fevil.example.net%2Fa.jpg&w=640", /not signed here/],
    ["src=%2Frelative.jpg&w=640", /siteUrl/],
    ["src=%2F%5Cevil.example.net%2Fa.jpg&w=640", /absolute/],
    ["src=ftp%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640", /absolute http/],
    ["src=https%3A%2F%2Fu%3Ap%40cdn.example.com%2Fa.jpg&w=640", /credentials/],
    ["src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=641", /width/],
    ["src=https%3A%2F%2Fcdn.example.com%2Fa.jpg", /width/],
    ["src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640&q=0", /q must/],
    ["src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640&h=0", /h must/],
    ["src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640&h=3841", /h must/],
    ["src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640&h=1.5", /h must/],
    ["src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640&fit=crop", /fit must be one of cover/],
  ])("refuses %s with 400 and says why", async (query, message) => {
    const response = await ask(query);
    expect(response.status).toBe(400);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(((await response.json()) as { error: string }).error).toMatch(message);
  });
});
