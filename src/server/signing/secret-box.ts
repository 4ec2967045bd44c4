import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";

/**
 * Seals API-key secrets at rest: AES-256-GCM under a key derived by HKDF-SHA256 from a master secret.
 * Sealed form: `v1.{kid}.{iv}.{ciphertext}.{tag}` (base64url parts). `kid` fingerprints the master, so
 * after a master rotation old rows still open with the previous master and can be re-sealed. The
 * public key is bound as associated data: a sealed secret copied onto another key row will not open.
 */
export interface SecretBox {
  seal(plaintext: string, publicKey: string): string;
  open(sealed: string, publicKey: string): string;
  /** True when the row was sealed under an older master and should be re-sealed. */
  needsReseal(sealed: string): boolean;
}

const FORMAT = "v1";
/**
 * Secrets kept open: every signed request opens its key's secret, and AES-GCM per request was 3 % of
 * a cache hit's CPU. Opening is a pure function of the sealed text and the key; the master that opens
 * them is in this process's memory anyway, so keeping what it opened adds nothing to read there.
 */
const OPEN_KEPT = 1_000;
const HKDF_SALT = "optstuff/api-key-secret";
const HKDF_INFO = "aes-256-gcm/v1";

interface Master {
  kid: string;
  key: Buffer;
}

function deriveMaster(secret: string): Master {
  const kid = createHash("sha256").update(secret).digest("base64url").slice(0, 8);
  const key = Buffer.from(hkdfSync("sha256", secret, HKDF_SALT, HKDF_INFO, 32));
  return { kid, key };
}

export function createSecretBox(current: string, previous?: string): SecretBox {
  // Derived once: HKDF per request would show up on the hot path.
  const primary = deriveMaster(current);
  const masters = new Map([[primary.kid, primary]]);
  if (previous) {
    const old = deriveMaster(previous);
    masters.set(old.kid, old);
  }

  const opened = new LRUCache<string, string>({ max: OPEN_KEPT });
  function openSealed(sealed: string, publicKey: string): string {
    const [format, kid, iv, body, tag] = sealed.split(".");
    const master = kid ? masters.get(kid) : undefined;
    if (format !== FORMAT || !master || !iv || body === undefined || !tag) {
      throw new Error("Sealed secret has an unknown format or master");
    }
    const decipher = createDecipheriv("aes-256-gcm", master.key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(publicKey, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  }

  return {
    seal(plaintext, publicKey) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", primary.key, iv);
      cipher.setAAD(Buffer.from(publicKey, "utf8"));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const parts = [iv, body, cipher.getAuthTag()].map((b) => b.toString("base64url"));
      return [FORMAT, primary.kid, ...parts].join(".");
    },
    open(sealed, publicKey) {
      // The public key is part of the entry: a sealed secret copied onto another key still fails.
      const entry = `${publicKey}\n${sealed}`;
      const known = opened.get(entry);
      if (known !== undefined) return known;
      const plaintext = openSealed(sealed, publicKey);
      opened.set(entry, plaintext);
      return plaintext;
    },
    needsReseal(sealed) {
      return sealed.split(".")[1] !== primary.kid;
    },
  };
}
