import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";

/**
 * The image API's pre-auth guard counts the address of the socket (as scripts/server.mjs stamps it),
 * not what the client writes into X-Forwarded-For, unless proxies are configured in front.
 */
let app: TestApp;
let behindProxy: TestApp;
beforeAll(async () => {
  app = await createTestApp({ env: { OPTSTUFF_AUTH_FAILURES_PER_MINUTE: "3" } });
  behindProxy = await createTestApp({
    env: { OPTSTUFF_AUTH_FAILURES_PER_MINUTE: "3", OPTSTUFF_TRUSTED_PROXY_HOPS: "1" },
  });
});
afterAll(async () => {
  await app?.close();
  await behindProxy?.close();
});

const forged = (target: TestApp) =>
  target.signedPath("w_40", "local/photo.jpg").replace(/sig=[^&]+/, `sig=${"C".repeat(32)}`);

describe("the failed-authentication guard's client address", () => {
  it("cannot be dodged by a new X-Forwarded-For on every attempt", async () => {
    await clearOfWindowEdge(); // the guard blocks until its minute ends
    const socket = "203.0.113.21";
    for (let i = 0; i < 3; i++) {
      const response = await app.fetch(forged(app), {
        headers: { [PEER_ADDRESS_HEADER]: socket, "x-forwarded-for": `198.51.100.${i + 1}` },
      });
      expect(response.status).toBe(403);
    }
    const blocked = await app.fetch(app.signedPath("w_40", "local/photo.jpg"), {
      headers: { [PEER_ADDRESS_HEADER]: socket, "x-forwarded-for": "198.51.100.99" },
    });
    expect(blocked.status).toBe(429);
    const neighbour = await app.fetch(app.signedPath("w_40", "local/photo.jpg"), {
      headers: { [PEER_ADDRESS_HEADER]: "203.0.113.22" },
    });
    expect(neighbour.status).toBe(200);
  });

  it("counts an IPv6 /64 as one client", async () => {
    await clearOfWindowEdge(); // the guard blocks until its minute ends
    for (let i = 0; i < 3; i++) {
      await app.fetch(forged(app), { headers: { [PEER_ADDRESS_HEADER]: `2001:db8:5:6::${i + 1}` } });
    }
    expect(
      (
        await app.fetch(app.signedPath("w_40", "local/photo.jpg"), {
          headers: { [PEER_ADDRESS_HEADER]: "2001:db8:5:6::ffff" },
        })
      ).status,
    ).toBe(429);
  });

  it("behind one proxy, counts the address that proxy appended, whatever the client put before it", async () => {
    await clearOfWindowEdge(); // the guard blocks until its minute ends
    const proxy = "10.0.0.2";
    for (let i = 0; i < 3; i++) {
      const response = await behindProxy.fetch(forged(behindProxy), {
        headers: { [PEER_ADDRESS_HEADER]: proxy, "x-forwarded-for": `198.51.100.${i + 1}, 203.0.113.31` },
      });
      expect(response.status).toBe(403);
    }
    const blocked = await behindProxy.fetch(behindProxy.signedPath("w_40", "local/photo.jpg"), {
      headers: { [PEER_ADDRESS_HEADER]: proxy, "x-forwarded-for": "203.0.113.31" },
    });
    expect(blocked.status).toBe(429);
    // Another client through the same proxy is not refused.
    const other = await behindProxy.fetch(behindProxy.signedPath("w_40", "local/photo.jpg"), {
      headers: { [PEER_ADDRESS_HEADER]: proxy, "x-forwarded-for": "203.0.113.32" },
    });
    expect(other.status).toBe(200);
  });
});
