import { describe, expect, it } from "vitest";
import { sign, signaturePayload, verifySignature } from "@/server/signing";
import { SIGNING_VECTORS, VECTOR_SECRET } from "../../support/vectors";
import { buildSignedUrl } from "../../support/signed-url";

const SECRET = VECTOR_SECRET;
const vectors: Array<[payload: string, signature: string]> = SIGNING_VECTORS.map((v) => [
  signaturePayload(v.operations, v.source, v.exp),
  v.signature,
]);

describe("signature (contract test vectors)", () => {
  it.each(vectors)("signs %s", (payload, expected) => {
    expect(sign(SECRET, payload)).toBe(expected);
    expect(verifySignature(SECRET, payload, expected)).toBe(true);
  });

  it("builds payloads with and without exp", () => {
    expect(signaturePayload("w_800,f_webp", "images.example.com/photo.jpg")).toBe(
      "w_800,f_webp/images.example.com/photo.jpg",
    );
    expect(signaturePayload("w_800,f_webp", "images.example.com/photo.jpg", 1706500000)).toBe(
      "w_800,f_webp/images.example.com/photo.jpg?exp=1706500000",
    );
  });

  it("refuses a signature that differs in one character, a truncated one, and another key's", () => {
    const [payload, good] = vectors[0]!;
    const flipped = (good[0] === "a" ? "b" : "a") + good.slice(1);
    expect(verifySignature(SECRET, payload, flipped)).toBe(false);
    expect(verifySignature(SECRET, payload, good.slice(0, 31))).toBe(false);
    expect(verifySignature(SECRET, payload, `${good}x`)).toBe(false);
    expect(verifySignature(`${SECRET.slice(0, -1)}A`, payload, good)).toBe(false);
    expect(verifySignature(SECRET, `${payload}x`, good)).toBe(false);
  });

  it("builds URLs whose single decode gives back the signed source (vector 7)", () => {
    const url = new URL(
      buildSignedUrl({
        baseUrl: "https://img.example.com/",
        projectSlug: "blog",
        publicKey: "pk_AAAAAAAAAAAAAAAAAAAAAA",
        secretKey: SECRET,
        operations: "w_100",
        source: "cdn.example.com:8443/a%20b.png",
      }),
    );
    expect(url.pathname).toBe("/api/v1/blog/w_100/cdn.example.com%3A8443/a%2520b.png");
    expect(url.searchParams.get("sig")).toBe("8vSNlBeE18OpGYAoANewl2Ozrh77utZw");
    const decoded = url.pathname.split("/").slice(5).map(decodeURIComponent).join("/");
    expect(decoded).toBe("cdn.example.com:8443/a%20b.png");
  });
});
