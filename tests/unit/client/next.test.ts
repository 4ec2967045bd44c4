import { describe, expect, it } from "vitest";
import { createImageLoader, createSigningRoute } from "../../../packages/client/src/next";
import { verifySignature, signaturePayload } from "@/server/signing";

const keys = { baseUrl: "https://img.example.com", projectSlug: "shop", publicKey: "pk_AAAAAAAAAAAAAAAAAAAAAA", secretKey: "sk_test" };
const route = createSigningRoute({ ...keys, allowedHosts: ["cdn.example.com"], widths: [640, 828, 1080] });
const ask = (query: string) => route(new Request(`https://app.example.com/api/image?${query}`));

describe("next/image loader", () => {
  it("points at the signing route with src, width and quality, and no secret", () => {
    const loader = createImageLoader();
    const url = loader({ src: "https://cdn.example.com/a b.jpg", width: 828, quality: 70 });
    expect(url).toBe("/api/image?src=https%3A%2F%2Fcdn.example.com%2Fa+b.jpg&w=828&q=70");
    expect(createImageLoader({ route: "/img" })({ src: "https://cdn.example.com/a.jpg", width: 640 })).toBe("/img?src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640");
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
    expect(verifySignature(keys.secretKey, signaturePayload("w_828,q_70,f_auto", "https://cdn.example.com/a.jpg", exp), location.searchParams.get("sig")!)).toBe(true);
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get("cache-control")!)?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge * 1000).toBeLessThanOrEqual((exp * 1000 - before) / 2 + 1000);
  });

  it("defaults the quality to 75 like next/image", async () => {
    const location = (await ask("src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640")).headers.get("location")!;
    expect(location).toContain("/w_640%2Cq_75%2Cf_auto/");
  });

  it("fetches a path of the site from siteUrl, and still checks it", async () => {
    const site = createSigningRoute({ ...keys, allowedHosts: [], siteUrl: "https://www.example.com/" });
    const location = new URL((await site(new Request("https://app.example.com/api/image?src=%2Fphotos%2Fa%20b.jpg&w=640"))).headers.get("location")!);
    expect(location.pathname).toBe("/api/v1/shop/w_640%2Cq_75%2Cf_auto/https%3A/www.example.com/photos/a%2520b.jpg");
    const foreign = await site(new Request("https://app.example.com/api/image?src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640"));
    expect(foreign.status).toBe(400);
    const protocolRelative = await site(new Request("https://app.example.com/api/image?src=%2F%2Fevil.example.net%2Fa.jpg&w=640"));
    expect(((await protocolRelative.json()) as { error: string }).error).toMatch(/absolute/);
  });

  it.each([
    ["src=https%3A%2F%2Fevil.example.net%2Fa.jpg&w=640", /not signed here/],
    ["src=%2Frelative.jpg&w=640", /siteUrl/],
    ["src=ftp%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640", /absolute http/],
    ["src=https%3A%2F%2Fu%3Ap%40cdn.example.com%2Fa.jpg&w=640", /credentials/],
    ["src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=641", /width/],
    ["src=https%3A%2F%2Fcdn.example.com%2Fa.jpg", /width/],
    ["src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=640&q=0", /q must/],
  ])("refuses %s with 400 and says why", async (query, message) => {
    const response = await ask(query);
    expect(response.status).toBe(400);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(((await response.json()) as { error: string }).error).toMatch(message);
  });
});
