import { describe, expect, it } from "vitest";
import { createSignInFailureLimit, SIGN_IN_FAILURES } from "@/server/auth/sign-in-failures";
import { createMemoryRateLimiter } from "@/server/coordination/memory-rate-limiter";
import { AppError } from "@/server/errors";

/** The real in-process limiter on a clock the test moves; starts at a window's edge. */
function setup() {
  let now = Date.UTC(2026, 10, 1, 12, 0, 0);
  const limit = createSignInFailureLimit(createMemoryRateLimiter({ now: () => now }), { now: () => now });
  return { limit, advance: (ms: number) => (now += ms) };
}

async function fail(limit: ReturnType<typeof setup>["limit"], email: string): Promise<void> {
  const attempt = await limit.begin(email);
  await attempt.settle(401);
}

describe("the per-account sign-in failure limit", () => {
  it(`refuses an account after ${SIGN_IN_FAILURES.max} wrong passwords, with Retry-After, and no other account`, async () => {
    const { limit } = setup();
    for (let i = 0; i < SIGN_IN_FAILURES.max; i++) await fail(limit, "owner@example.com");
    const refused = await limit.begin("owner@example.com").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(429);
    expect(Number((refused as AppError).headers["Retry-After"])).toBeGreaterThan(0);
    expect(Number((refused as AppError).headers["Retry-After"])).toBeLessThanOrEqual(15 * 60);
    await expect(limit.begin("someone-else@example.com")).resolves.toBeDefined();
  });

  it("counts one account whatever its case or surrounding spaces", async () => {
    const { limit } = setup();
    const spellings = ["Owner@Example.com", " owner@example.com", "OWNER@EXAMPLE.COM "];
    for (let i = 0; i < SIGN_IN_FAILURES.max; i++) await fail(limit, spellings[i % spellings.length]!);
    await expect(limit.begin("owner@example.com")).rejects.toMatchObject({ status: 429 });
  });

  it("counts wrong passwords only: successes and answers that checked no password give their token back", async () => {
    const { limit } = setup();
    for (let i = 0; i < 3 * SIGN_IN_FAILURES.max; i++) {
      const attempt = await limit.begin("owner@example.com");
      await attempt.settle([200, 400, 403, 429][i % 4]!);
    }
    for (let i = 0; i < SIGN_IN_FAILURES.max - 1; i++) await fail(limit, "owner@example.com");
    await expect(limit.begin("owner@example.com")).resolves.toBeDefined();
  });

  it("is a window, not a ban: the owner gets in once the window has passed", async () => {
    const { limit, advance } = setup();
    for (let i = 0; i < SIGN_IN_FAILURES.max; i++) await fail(limit, "owner@example.com");
    advance(10 * 60_000);
    await expect(limit.begin("owner@example.com")).rejects.toMatchObject({ status: 429 });
    // A sliding window: the failures weigh less as the next window goes on, and nothing after two.
    advance(20 * 60_000);
    const attempt = await limit.begin("owner@example.com");
    await attempt.settle(200);
  });

  it("holds under a burst: concurrent attempts cannot all get in before the failures are counted", async () => {
    const { limit } = setup();
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => limit.begin("owner@example.com")));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(SIGN_IN_FAILURES.max);
  });
});
