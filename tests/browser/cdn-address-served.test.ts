import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServedApp, type ServedApp } from "../support/browser";
import { clearOfWindowEdge } from "../support/clock";

/**
 * A CDN in front names the client in a header of its own, believed only with the shared secret
 * (OPTSTUFF_CDN_ADDRESS_HEADER, OPTSTUFF_CDN_SECRET). Against the built app as `npm start` runs it,
 * through the sign-in limit (10 failed attempts a minute per client address).
 */
const SECRET = "cdn-secret-of-this-test-0123456789abcdef";
let app: ServedApp;

beforeAll(async () => {
  app = await startServedApp({ OPTSTUFF_CDN_ADDRESS_HEADER: "cf-connecting-ip", OPTSTUFF_CDN_SECRET: SECRET });
}, 120_000);
afterAll(() => app?.stop());

async function signInStatuses(headers: (i: number) => Record<string, string>, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${app.baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.baseUrl, ...headers(i) },
      body: JSON.stringify({
        email: `nobody-${randomBytes(4).toString("hex")}@example.com`,
        password: "wrong-password",
      }),
    });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

describe("a CDN's client header, served", () => {
  it("counts each client the CDN names when it sends the secret, and the connection when it does not", async () => {
    await clearOfWindowEdge(60_000, 20_000);
    // With the secret: twelve clients, one attempt each, none limited.
    const named = await signInStatuses(
      (i) => ({ "x-optstuff-cdn-secret": SECRET, "cf-connecting-ip": `203.0.113.${i + 1}` }),
      12,
    );
    expect(named).toEqual(Array(12).fill(401));
    // The same named client past its ten is limited.
    const one = await signInStatuses(
      () => ({ "x-optstuff-cdn-secret": SECRET, "cf-connecting-ip": "203.0.113.200" }),
      11,
    );
    expect(one.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(one[10]).toBe(429);
    // Around the CDN (no secret, or a wrong one): a new claimed address each time changes nothing.
    const claimed = await signInStatuses(
      (i) => ({ "cf-connecting-ip": `198.51.100.${i + 1}`, ...(i % 2 ? { "x-optstuff-cdn-secret": "guessed" } : {}) }),
      12,
    );
    expect(claimed.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(claimed.slice(10)).toEqual([429, 429]);
  }, 60_000);
});
