import { describe, expect, it } from "vitest";
import { info, paletteCss } from "../../../packages/client/src/index";

describe("paletteCss", () => {
  const palette = [
    { colour: "#d88848", share: 0.5 },
    { colour: "#203040", share: 0.3 },
    { colour: "#FFFFFF", share: 0.2 },
  ];

  it("numbers the colours by share and paints the background with the first", () => {
    expect(paletteCss(palette)).toBe(
      "--palette-1: #d88848; --palette-2: #203040; --palette-3: #FFFFFF; background-color: var(--palette-1);",
    );
    expect(paletteCss(palette.slice(0, 1), "hero-img")).toBe(
      "--hero-img-1: #d88848; background-color: var(--hero-img-1);",
    );
  });

  it("writes nothing for a transparent image's empty palette", () => {
    expect(paletteCss([])).toBe("");
  });

  it("refuses what would break out of a declaration, in a colour or in the name", () => {
    expect(() => paletteCss([{ colour: "red;} body{display:none", share: 1 }])).toThrow(/not a #rrggbb colour/);
    expect(() => paletteCss(palette, "x;color:red")).toThrow(/not a lowercase CSS name/);
    expect(() => paletteCss(palette, "")).toThrow(/not a lowercase CSS name/);
  });
});

describe("info", () => {
  it("reads an answer cached before palettes existed as an empty palette, which writes no CSS", async () => {
    const old = { width: 10, height: 10, format: "png", dominant: "#000000", thumbhash: "", blurhash: "" };
    const described = await info({
      baseUrl: "https://img.example.com",
      projectSlug: "p",
      publicKey: "pk_AAAAAAAAAAAAAAAAAAAAAA",
      secretKey: "sk_test",
      source: "https://cdn.example.com/a.png",
      fetch: async () => Response.json(old),
    });
    expect(described).toMatchObject({ ...old, palette: [] });
    expect(paletteCss(described.palette)).toBe("");
  });
});
