import { createHmac, randomBytes } from "node:crypto";

/** Standard Webhooks' secret form: `whsec_` and the key's bytes in base64. */
const SECRET_PREFIX = "whsec_";

/** A new signing secret: 24 random bytes, as Standard Webhooks' libraries expect them. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString("base64")}`;
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * The Standard Webhooks signature (standardwebhooks.com): HMAC-SHA256 under the secret's bytes over
 * `{id}.{timestamp}.{body}`, sent as `v1,<base64>`. The timestamp is signed with the body, so a
 * receiver that refuses old timestamps refuses a replayed request; the id lets it drop a duplicate.
 */
export function signWebhook(secret: string, id: string, sentAt: Date, body: string): SignedHeaders {
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}
