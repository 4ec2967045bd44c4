import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SecretOnce } from "@/components/keys/secret-once";

const secretKey = `sk_${"A1b2C3d4".repeat(6)}`;
const env = [
  "OPTSTUFF_BASE_URL=https://images.example.com",
  "OPTSTUFF_PROJECT_SLUG=website",
  "OPTSTUFF_PUBLIC_KEY=pk_0123456789abcdef0123",
  `OPTSTUFF_SECRET_KEY=${secretKey}`,
].join("\n");

describe("the new key's secret, shown once", () => {
  it("wraps the keys and the .env block inside the dialog instead of cutting them at its edge", () => {
    const html = renderToStaticMarkup(
      createElement(SecretOnce, {
        publicKey: "pk_0123456789abcdef0123",
        secretKey,
        env,
        saved: false,
        onSavedChange: () => undefined,
        onDone: () => undefined,
      }),
    );
    const blocks = [...html.matchAll(/<pre [^>]*data-testid="copy-([^"]+)"[^>]*class="([^"]*)"[^>]*>([^<]*)<\/pre>/g)];
    expect(blocks.map((b) => b[1])).toEqual(["Public key", "Secret key", ".env"]);
    for (const [, label, classes] of blocks) {
      // Every character on screen: long lines break anywhere (a key has no spaces), line breaks kept.
      expect(classes, label).toContain("whitespace-pre-wrap");
      expect(classes, label).toContain("break-all");
      expect(classes, label).not.toContain("whitespace-nowrap");
      expect(classes, label).not.toMatch(/(^| )whitespace-pre( |$)/);
    }
    // Shown whole: what is copied is what is on screen.
    expect(blocks[1]![3]).toBe(secretKey);
    expect(blocks[2]![3]).toBe(env);
  });
});
