import { describe, expect, it } from "vitest";
import { createNuxtImageProvider, createUnpicTransformer } from "../../../packages/client/src/adapters";

describe("image component adapters", () => {
  it("Nuxt Image: the modifiers it reads go to the signing route, empty ones are left out", () => {
    const provider = createNuxtImageProvider({ route: "/img" });
    expect(
      provider.getImage("https://cdn.example.com/a b.jpg", {
        modifiers: { width: 300, height: "200", fit: "inside", quality: 70 },
      }).url,
    ).toBe("/img?src=https%3A%2F%2Fcdn.example.com%2Fa+b.jpg&w=300&h=200&q=70&fit=inside");
    expect(createNuxtImageProvider().getImage("/photos/a.jpg", { modifiers: { width: 64, height: "" } }).url).toBe(
      "/api/image?src=%2Fphotos%2Fa.jpg&w=64",
    );
    expect(createNuxtImageProvider().getImage("/a.jpg", {}).url).toBe("/api/image?src=%2Fa.jpg");
  });

  it("unpic: a width alone keeps the shape, a box is cropped to cover", () => {
    const transform = createUnpicTransformer();
    expect(transform("https://cdn.example.com/a.jpg", { width: 800 })).toBe(
      "/api/image?src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=800",
    );
    expect(transform(new URL("https://cdn.example.com/a.jpg"), { width: 800, height: 600, quality: 80 })).toBe(
      "/api/image?src=https%3A%2F%2Fcdn.example.com%2Fa.jpg&w=800&h=600&q=80&fit=cover",
    );
  });
});
