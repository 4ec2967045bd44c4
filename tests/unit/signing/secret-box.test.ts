import { describe, expect, it } from "vitest";
import { createSecretBox, generateKeyPair, isPublicKeyShape, isSecretKeyShape } from "@/server/signing";

describe("key pairs", () => {
  it("have the contract's shapes and are random", () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    expect(a.publicKey).toMatch(/^pk_[A-Za-z0-9_-]{22}$/);
    expect(a.secretKey).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(isPublicKeyShape(a.publicKey) && isSecretKeyShape(a.secretKey)).toBe(true);
    expect(a.publicKey).not.toBe(b.publicKey);
  });

  it.each([
    "",
    "pk_",
    "pk_short",
    "sk_AAAAAAAAAAAAAAAAAAAAAA",
    "pk_AAAAAAAAAAAAAAAAAAAAA=",
    "pk_AAAAAAAAAAAAAAAAAAAAAAA",
    " pk_AAAAAAAAAAAAAAAAAAAAAA",
  ])("refuses the public key shape %j", (value) => expect(isPublicKeyShape(value)).toBe(false));
});

/** `sealed` with one bit of its `part` (3 the ciphertext, 4 the tag) flipped. */
function tampered(sealed: string, part: 3 | 4): string {
  const parts = sealed.split(".");
  const bytes = Buffer.from(parts[part]!, "base64url");
  bytes[0] = bytes[0]! ^ 1;
  parts[part] = bytes.toString("base64url");
  return parts.join(".");
}

describe("secret box", () => {
  const { publicKey, secretKey } = generateKeyPair();

  it("round-trips and never stores the plaintext", () => {
    const box = createSecretBox("master-one");
    const sealed = box.seal(secretKey, publicKey);
    expect(sealed).not.toContain(secretKey);
    expect(sealed.split(".")).toHaveLength(5);
    expect(sealed.startsWith("v1.")).toBe(true);
    expect(box.open(sealed, publicKey)).toBe(secretKey);
    expect(box.seal(secretKey, publicKey)).not.toBe(sealed);
  });

  it("is bound to its public key and detects tampering", () => {
    const box = createSecretBox("master-one");
    const sealed = box.seal(secretKey, publicKey);
    expect(() => box.open(sealed, generateKeyPair().publicKey)).toThrow();
    expect(() => box.open(tampered(sealed, 3), publicKey)).toThrow();
  });

  it("keeps a secret it opened for its key only: another key, or an altered copy, still fails after it", () => {
    const box = createSecretBox("master-one");
    const sealed = box.seal(secretKey, publicKey);
    expect(box.open(sealed, publicKey)).toBe(secretKey);
    expect(box.open(sealed, publicKey)).toBe(secretKey);
    expect(() => box.open(sealed, generateKeyPair().publicKey)).toThrow();
    expect(() => box.open(tampered(sealed, 4), publicKey)).toThrow();
  });

  it("opens rows sealed by the previous master after rotation and flags them for re-sealing", () => {
    const old = createSecretBox("master-one");
    const sealed = old.seal(secretKey, publicKey);
    const rotated = createSecretBox("master-two", "master-one");
    expect(rotated.open(sealed, publicKey)).toBe(secretKey);
    expect(rotated.needsReseal(sealed)).toBe(true);
    expect(rotated.needsReseal(rotated.seal(secretKey, publicKey))).toBe(false);
    expect(() => createSecretBox("master-two").open(sealed, publicKey)).toThrow();
  });
});
