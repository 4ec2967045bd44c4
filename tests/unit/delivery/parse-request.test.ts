import { describe, expect, it } from "vitest";
import { parseImageRequest, restoreSchemeSlashes } from "@/server/delivery/parse-request";
import { AppError } from "@/server/errors";

const KEY = "pk_AAAAAAAAAAAAAAAAAAAAAA";
const query = (extra = "") => new URLSearchParams(`key=${KEY}&sig=${"x".repeat(32)}${extra}`);

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? error.code : "NOT_APP_ERROR";
  }
  return undefined;
}

describe("parseImageRequest", () => {
  it("joins source segments and keeps the operations segment as signed", () => {
    const parts = parseImageRequest({
      projectSlug: "blog",
      segments: ["w_800,f_webp", "images.example.com", "photo.jpg"],
      query: query(),
    });
    expect(parts.operationsSegment).toBe("w_800,f_webp");
    expect(parts.source).toBe("images.example.com/photo.jpg");
    expect(parts.operations.width).toBe(800);
    expect(parts.exp).toBeUndefined();
  });

  it("decodes nothing a second time (vector 7: the route already decoded once)", () => {
    const parts = parseImageRequest({
      projectSlug: "p",
      segments: ["w_100", "cdn.example.com:8443", "a%20b.png"],
      query: query(),
    });
    expect(parts.source).toBe("cdn.example.com:8443/a%20b.png");
  });

  it("restores collapsed scheme slashes", () => {
    expect(restoreSchemeSlashes("https:/cdn.example.com/a.png")).toBe("https://cdn.example.com/a.png");
    expect(restoreSchemeSlashes("http:/cdn.example.com/a.png")).toBe("http://cdn.example.com/a.png");
    expect(restoreSchemeSlashes("https://cdn.example.com/a.png")).toBe("https://cdn.example.com/a.png");
    expect(restoreSchemeSlashes("cdn.example.com/https:/x")).toBe("cdn.example.com/https:/x");
    const parts = parseImageRequest({
      projectSlug: "p",
      segments: ["embed,s_300x200", "https:", "cdn.example.com", "a.png"],
      query: query(),
    });
    expect(parts.source).toBe("https://cdn.example.com/a.png");
  });

  it("keeps exp as text for the payload and as a number for the check", () => {
    const parts = parseImageRequest({
      projectSlug: "p",
      segments: ["_", "a.com", "b.png"],
      query: query("&exp=1706500000"),
    });
    expect(parts.expText).toBe("1706500000");
    expect(parts.exp).toBe(1706500000);
  });

  it.each([
    [{ segments: ["w_100"] }, "BAD_REQUEST"],
    [{ segments: [] }, "BAD_REQUEST"],
    [{ projectSlug: "" }, "BAD_REQUEST"],
    [{ segments: ["nope_1", "a.com", "b.png"] }, "UNKNOWN_OPERATION"],
    [{ segments: ["w_0", "a.com", "b.png"] }, "INVALID_OPERATION"],
    [{ query: query("&exp=soon") }, "BAD_REQUEST"],
    [{ query: query("&exp=-5") }, "BAD_REQUEST"],
    [{ query: new URLSearchParams(`sig=${"x".repeat(32)}`) }, "MISSING_CREDENTIALS"],
    [{ query: new URLSearchParams(`key=${KEY}`) }, "MISSING_CREDENTIALS"],
    [{ query: new URLSearchParams(`key=pk_bad&sig=x`) }, "INVALID_KEY"],
    [{ segments: ["_", "a.com\u0000", "b.png"] }, "INVALID_SOURCE"],
  ] as const)("refuses %j with %s", (override, code) => {
    const input = { projectSlug: "p", segments: ["_", "a.com", "b.png"], query: query(), ...override };
    expect(codeOf(() => parseImageRequest(input))).toBe(code);
  });

  it("takes a source of 2,048 bytes and refuses one byte more, counted in UTF-8", () => {
    const parse = (source: string) =>
      parseImageRequest({ projectSlug: "p", segments: ["_", ...source.split("/")], query: query() });
    expect(parse(`a.com/${"x".repeat(2042)}`).source).toHaveLength(2048);
    expect(codeOf(() => parse(`a.com/${"x".repeat(2043)}`))).toBe("INVALID_SOURCE");
    // 1,023 two-byte characters and the host: 2,052 bytes in 1,029 characters.
    expect(codeOf(() => parse(`a.com/${"é".repeat(1023)}`))).toBe("INVALID_SOURCE");
  });

  it("reports a path error before missing credentials", () => {
    expect(
      codeOf(() =>
        parseImageRequest({ projectSlug: "p", segments: ["bogus", "a.com", "b.png"], query: new URLSearchParams() }),
      ),
    ).toBe("UNKNOWN_OPERATION");
  });
});
