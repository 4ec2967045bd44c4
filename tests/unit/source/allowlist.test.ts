import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { assertSourceAllowed, isRefererAllowed, isSourceAllowed, normaliseHostEntry } from "@/server/source/allowlist";
import { parseSource } from "@/server/source/parse-source";

const allowed = (raw: string, hosts: string[]) => isSourceAllowed(parseSource(raw), hosts);

describe("normaliseHostEntry", () => {
  it("normalises case, trailing dot, IDN and explicit default ports", () => {
    expect(normaliseHostEntry(" Example.COM. ")).toEqual({
      kind: "host",
      host: "example.com",
      subdomainsOnly: false,
      scheme: null,
      port: null,
    });
    expect(normaliseHostEntry("café.example")).toMatchObject({ host: "xn--caf-dma.example" });
    expect(normaliseHostEntry("https://cdn.example.com:443")).toMatchObject({ scheme: "https:", port: null });
    expect(normaliseHostEntry("cdn.example.com:8443")).toMatchObject({ scheme: null, port: "8443" });
    expect(normaliseHostEntry("*.example.com")).toMatchObject({ host: "example.com", subdomainsOnly: true });
  });

  it("recognises * and local", () => {
    expect(normaliseHostEntry("*")).toEqual({ kind: "any-remote" });
    expect(normaliseHostEntry("local")).toEqual({ kind: "local" });
  });

  it.each([
    "",
    "ftp://example.com",
    "example.com/images",
    "example.com?x=1",
    "user@example.com",
    "ex*ample.com",
    "*.",
    "**",
  ])("returns null for the unusable entry %j", (entry) => expect(normaliseHostEntry(entry)).toBeNull());
});

describe("isSourceAllowed", () => {
  it("allows the exact host and its subdomains, not look-alikes", () => {
    const hosts = ["example.com"];
    expect(allowed("example.com/a.png", hosts)).toBe(true);
    expect(allowed("img.example.com/a.png", hosts)).toBe(true);
    expect(allowed("a.b.example.com/a.png", hosts)).toBe(true);
    expect(allowed("badexample.com/a.png", hosts)).toBe(false);
    expect(allowed("example.com.evil.net/a.png", hosts)).toBe(false);
    expect(allowed("example.org/a.png", hosts)).toBe(false);
  });

  it("treats *.example.com as subdomains only", () => {
    expect(allowed("img.example.com/a.png", ["*.example.com"])).toBe(true);
    expect(allowed("example.com/a.png", ["*.example.com"])).toBe(false);
  });

  it("ignores case and a trailing dot on both sides", () => {
    expect(allowed("IMG.Example.Com./a.png", ["EXAMPLE.com."])).toBe(true);
  });

  it("compares IDN hosts in punycode", () => {
    expect(allowed("café.example/a.png", ["xn--caf-dma.example"])).toBe(true);
    expect(allowed("xn--caf-dma.example/a.png", ["café.example"])).toBe(true);
  });

  it("restricts the scheme when the entry names one", () => {
    expect(allowed("https://cdn.example.com/a.png", ["https://cdn.example.com"])).toBe(true);
    expect(allowed("http://cdn.example.com/a.png", ["https://cdn.example.com"])).toBe(false);
    expect(allowed("http://cdn.example.com/a.png", ["cdn.example.com"])).toBe(true);
  });

  it("allows only default ports unless the entry names a port", () => {
    expect(allowed("cdn.example.com:8443/a%20b.png", ["cdn.example.com"])).toBe(false);
    expect(allowed("cdn.example.com:8443/a%20b.png", ["cdn.example.com:8443"])).toBe(true);
    expect(allowed("cdn.example.com/a.png", ["cdn.example.com:8443"])).toBe(false);
    expect(allowed("cdn.example.com:9000/a.png", ["cdn.example.com:8443"])).toBe(false);
    expect(allowed("cdn.example.com:443/a.png", ["cdn.example.com"])).toBe(true);
    expect(allowed("http://cdn.example.com:443/a.png", ["cdn.example.com"])).toBe(false);
    expect(allowed("cdn.example.com/a.png", ["cdn.example.com:443"])).toBe(true);
    expect(allowed("https://cdn.example.com:8443/a.png", ["https://cdn.example.com:8443"])).toBe(true);
    expect(allowed("http://cdn.example.com:8443/a.png", ["https://cdn.example.com:8443"])).toBe(false);
  });

  it("lets * allow any remote host but not local sources", () => {
    expect(allowed("anything.example.net:8080/a.png", ["*"])).toBe(true);
    expect(allowed("local/a.png", ["*"])).toBe(false);
  });

  it("allows local sources only through the `local` entry", () => {
    expect(allowed("local/a.png", ["local"])).toBe(true);
    expect(allowed("local/a.png", ["example.com"])).toBe(false);
    expect(allowed("example.com/a.png", ["local"])).toBe(false);
  });

  it("refuses everything with an empty list", () => {
    expect(allowed("example.com/a.png", [])).toBe(false);
    expect(allowed("local/a.png", [])).toBe(false);
  });

  it("ignores entries it cannot understand instead of widening", () => {
    expect(allowed("example.com/a.png", ["example.com/images", "ftp://example.com"])).toBe(false);
  });

  it("matches IP literal entries exactly", () => {
    expect(allowed("2130706433/a.png", ["127.0.0.1"])).toBe(true);
    expect(allowed("127.0.0.2/a.png", ["127.0.0.1"])).toBe(false);
  });
});

describe("assertSourceAllowed", () => {
  it("throws SOURCE_NOT_ALLOWED for a refused source", () => {
    expect(() => assertSourceAllowed(parseSource("evil.example/a.png"), ["example.com"])).toThrow(AppError);
    try {
      assertSourceAllowed(parseSource("evil.example/a.png"), ["example.com"]);
    } catch (error) {
      expect((error as AppError).code).toBe("SOURCE_NOT_ALLOWED");
      expect((error as AppError).status).toBe(403);
    }
  });

  it("returns quietly for an allowed source", () => {
    expect(() => assertSourceAllowed(parseSource("img.example.com/a.png"), ["example.com"])).not.toThrow();
  });
});

describe("isRefererAllowed", () => {
  it("allows everything, even a missing Referer, when the list is empty", () => {
    expect(isRefererAllowed(null, [])).toBe(true);
    expect(isRefererAllowed("https://anyone.example/", [])).toBe(true);
  });

  it("refuses a missing or unparseable Referer when the list is not empty", () => {
    expect(isRefererAllowed(null, ["example.com"])).toBe(false);
    expect(isRefererAllowed("", ["example.com"])).toBe(false);
    expect(isRefererAllowed("not a url", ["example.com"])).toBe(false);
    expect(isRefererAllowed("android-app://example.com/", ["example.com"])).toBe(false);
  });

  it("matches a plain entry exactly (no implied subdomains)", () => {
    expect(isRefererAllowed("https://example.com/page", ["example.com"])).toBe(true);
    expect(isRefererAllowed("https://www.example.com/page", ["example.com"])).toBe(false);
    expect(isRefererAllowed("https://badexample.com/", ["example.com"])).toBe(false);
  });

  it("matches *.example.com on subdomains only, not the apex", () => {
    expect(isRefererAllowed("https://www.example.com/", ["*.example.com"])).toBe(true);
    expect(isRefererAllowed("https://a.b.example.com/", ["*.example.com"])).toBe(true);
    expect(isRefererAllowed("https://example.com/", ["*.example.com"])).toBe(false);
    expect(isRefererAllowed("https://evilexample.com/", ["*.example.com"])).toBe(false);
  });

  it("is case-insensitive and ignores ports, schemes and a trailing dot", () => {
    expect(isRefererAllowed("HTTP://WWW.Example.COM.:8080/x", ["www.example.com"])).toBe(true);
    expect(isRefererAllowed("https://www.example.com/", ["https://WWW.example.com:8443"])).toBe(true);
  });

  it("lets * accept any present Referer but still refuses a missing one", () => {
    expect(isRefererAllowed("https://anyone.example/", ["*"])).toBe(true);
    expect(isRefererAllowed(null, ["*"])).toBe(false);
  });
});
