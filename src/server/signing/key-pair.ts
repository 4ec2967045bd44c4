import { randomBytes } from "node:crypto";

const PUBLIC_KEY_SHAPE = /^pk_[A-Za-z0-9_-]{22}$/;
const SECRET_KEY_SHAPE = /^sk_[A-Za-z0-9_-]{43}$/;

export interface KeyPair {
  publicKey: string;
  secretKey: string;
}

/** `pk_` + base64url(16 random bytes), `sk_` + base64url(32 random bytes) (contract §2). */
export function generateKeyPair(): KeyPair {
  return {
    publicKey: `pk_${randomBytes(16).toString("base64url")}`,
    secretKey: `sk_${randomBytes(32).toString("base64url")}`,
  };
}

/** Checked before any lookup so malformed keys never reach a cache or the database. */
export function isPublicKeyShape(value: string): boolean {
  return PUBLIC_KEY_SHAPE.test(value);
}

export function isSecretKeyShape(value: string): boolean {
  return SECRET_KEY_SHAPE.test(value);
}
