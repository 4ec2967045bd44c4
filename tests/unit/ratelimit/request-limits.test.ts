import { describe, expect, it } from "vitest";
import { parseEnv } from "@/env";
import type { ApiKeyConfig } from "@/server/config-cache";
import { createCounters } from "@/server/coordination/counters";
import { isAddressSubject, rateLimitSubjects } from "@/server/coordination/keys";
import { createMemoryRateLimiter } from "@/server/coordination/memory-rate-limiter";
import { withRefusalMemo } from "@/server/coordination/refusal-memo";
import type { RateLimiter } from "@/server/coordination/types";
import { AppError } from "@/server/errors";
import { capRefusal } from "@/server/spend-caps/refusal";
import { addressSubject } from "@/server/ratelimit/address-subject";
import {
  DEFAULT_ADDRESS_LIMITS,
  requestLimits,
  withinLimits,
  type AddressLimits,
  type LimitDeps,
} from "@/server/ratelimit/request-limits";

// A fixed instant 10 s into a minute and 10 s into a UTC day: no window edge inside a test.
const NOW = Date.UTC(2026, 10, 23, 0, 0, 10);

function setup(
  addressLimits: AddressLimits = { requestsPerMinute: 3, transformsPerMinute: 2 },
  keyLimits = { perMinute: 5, perDay: 100 },
) {
  const inner = createMemoryRateLimiter({ now: () => NOW, isAddress: isAddressSubject });
  const calls: string[] = [];
  // Records every call the limits make, so a test can say which windows a request was charged in.
  const recording: RateLimiter = {
    ...inner,
    limit(window, identifier, max) {
      calls.push(`limit ${window} ${identifier}`);
      return inner.limit(window, identifier, max);
    },
    refund(window, identifier, max) {
      calls.push(`refund ${window} ${identifier}`);
      return inner.refund(window, identifier, max);
    },
  };
  const counters = createCounters();
  const deps: LimitDeps = {
    limiter: withRefusalMemo(recording, () => NOW),
    logSampled: () => {},
    counters,
    now: () => NOW,
    addressLimits,
  };
  const apiKey: ApiKeyConfig = {
    id: "key-id",
    projectId: "project-id",
    publicKey: "pk_test",
    encryptedSecret: "",
    expiresAt: null,
    revokedAt: null,
    rateLimitPerMinute: keyLimits.perMinute,
    rateLimitPerDay: keyLimits.perDay,
    policy: null,
    capReached: null,
  };
  return {
    deps,
    apiKey,
    calls,
    counters,
    limiter: inner,
    forRequest: (address = "203.0.113.9", key: Partial<ApiKeyConfig> = {}) =>
      requestLimits({ ...apiKey, ...key }, address, deps),
  };
}

async function status(admission: Promise<unknown>): Promise<number> {
  return admission.then(
    () => 200,
    (error: unknown) => (error instanceof AppError ? error.status : 500),
  );
}

describe("what a request is charged", () => {
  it("charges a request answered without work in its address's request window only", async () => {
    const { forRequest, calls } = setup();
    await forRequest().admitRequest();
    expect(calls).toEqual([`limit minute ${rateLimitSubjects.addressRequests("203.0.113.9")}`]);
  });

  it("charges a transform in all four windows at once, and each window once whatever is called after", async () => {
    const { forRequest, calls } = setup();
    const limits = forRequest();
    await limits.admitTransform();
    await limits.admitRequest();
    await limits.admitTransform();
    expect(calls.sort()).toEqual(
      [
        `limit minute ${rateLimitSubjects.addressRequests("203.0.113.9")}`,
        `limit minute ${rateLimitSubjects.addressTransforms("203.0.113.9")}`,
        "limit minute pk_test",
        "limit day pk_test",
      ].sort(),
    );
  });

  it("charges work left for after the answer as a transform, but not as another request", async () => {
    const { apiKey, deps, calls } = setup();
    await requestLimits(apiKey, "203.0.113.9", deps, { afterAnswer: true }).admitTransform();
    expect(calls.sort()).toEqual(
      [
        `limit minute ${rateLimitSubjects.addressTransforms("203.0.113.9")}`,
        "limit minute pk_test",
        "limit day pk_test",
      ].sort(),
    );
  });

  it("lets cache hits through when the key's transforms are spent, and refuses the next transform", async () => {
    const { forRequest } = setup(undefined, { perMinute: 1, perDay: 100 });
    expect(await status(forRequest("203.0.113.1").admitTransform())).toBe(200);
    expect(await status(forRequest("203.0.113.2").admitTransform())).toBe(429);
    expect(await status(forRequest("203.0.113.2").admitRequest())).toBe(200);
  });

  it("throttles an address alone: its requests, then its share of transforms", async () => {
    const { forRequest } = setup({ requestsPerMinute: 3, transformsPerMinute: 1 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await status(forRequest("203.0.113.1").admitRequest()));
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await status(forRequest("203.0.113.2").admitTransform())).toBe(200);
    expect(await status(forRequest("203.0.113.2").admitTransform())).toBe(429); // its one transform a minute is spent
    expect(await status(forRequest("203.0.113.3").admitTransform())).toBe(200);
  });

  it("gives back the tokens of the windows that admitted when one refused", async () => {
    const { forRequest, calls, limiter } = setup({ requestsPerMinute: 10, transformsPerMinute: 1 });
    await forRequest().admitTransform();
    calls.length = 0;
    expect(await status(forRequest().admitTransform())).toBe(429); // the address's transform window refuses
    expect(calls.filter((call) => call.startsWith("refund")).sort()).toEqual(
      [
        `refund minute ${rateLimitSubjects.addressRequests("203.0.113.9")}`,
        "refund minute pk_test",
        "refund day pk_test",
      ].sort(),
    );
    // The key holds one transform, not two: with this probe, two of five are taken.
    expect((await limiter.limit("minute", "pk_test", 5)).remaining).toBe(3);
  });

  it("answers with the refusing window that frees capacity last, so Retry-After is not a promise it cannot keep", async () => {
    const { forRequest } = setup({ requestsPerMinute: 10, transformsPerMinute: 1 }, { perMinute: 5, perDay: 1 });
    await forRequest().admitTransform();
    const refused = await forRequest()
      .admitTransform()
      .catch((error: unknown) => error as AppError);
    expect(refused).toBeInstanceOf(AppError);
    // Both the address's minute and the key's day refuse: the day's reset is the one that matters.
    expect(refused!.headers?.["X-RateLimit-Limit"]).toBe("1");
    expect(Number(refused!.headers?.["Retry-After"])).toBeGreaterThan(3600);
    expect(refused!.detail).toContain("keyTransformsPerDay");
  });

  it("skips the address windows for a request it cannot attribute, and counts it", async () => {
    const { forRequest, calls, counters } = setup();
    for (const address of ["unknown", "127.0.0.1", "10.0.0.7"]) await forRequest(address).admitTransform();
    expect(calls.every((call) => call.endsWith("pk_test"))).toBe(true);
    expect(counters.get("ratelimit_address_unattributed")).toBe(3);
  });

  it("turns a per-address window off at 0", async () => {
    const { forRequest, calls } = setup({ requestsPerMinute: 0, transformsPerMinute: 0 });
    await forRequest().admitTransform();
    expect(calls.sort()).toEqual(["limit day pk_test", "limit minute pk_test"]);
  });

  it("lets a request through when the limiter fails, and counts it (failure policy)", async () => {
    const { deps, apiKey, counters } = setup();
    const failing: LimitDeps = {
      ...deps,
      limiter: { ...deps.limiter, knownRefusal: () => null, limit: () => Promise.reject(new Error("down")) },
    };
    expect(await status(requestLimits(apiKey, "203.0.113.9", failing).admitTransform())).toBe(200);
    expect(counters.get("ratelimit_fail_open")).toBe(4);
  });
});

describe("withinLimits", () => {
  const refusedElsewhere = () => new AppError("RATE_LIMITED", { detail: "another request's limit" });

  it("charges a request that shared another's result as a request, after the work", async () => {
    const { forRequest, calls } = setup();
    const result = await withinLimits(forRequest(), async () => "shared");
    expect(result).toBe("shared");
    expect(calls).toEqual([`limit minute ${rateLimitSubjects.addressRequests("203.0.113.9")}`]);
  });

  it("tries once more when the job it shared was refused by the other request's limits, and does the work under its own", async () => {
    const { forRequest } = setup();
    let attempts = 0;
    const result = await withinLimits(forRequest(), async (admit) => {
      attempts++;
      if (attempts === 1) throw refusedElsewhere(); // the leader's refusal, seen by a follower
      await admit();
      return "transformed";
    });
    expect([result, attempts]).toEqual(["transformed", 2]);
  });

  it("tries once more when the job it shared was refused by the other key's spend cap, under its own key", async () => {
    const { forRequest } = setup();
    const otherKeysCap = capRefusal({ capReached: { cap: "transformsPerDay", limit: 5, untilMs: NOW + 60_000 } }, NOW)!;
    let attempts = 0;
    const result = await withinLimits(forRequest(), async (admit) => {
      attempts++;
      if (attempts === 1) throw otherKeysCap;
      await admit();
      return "transformed";
    });
    expect([result, attempts]).toEqual(["transformed", 2]);
  });

  it("refuses its own key's transform once the key reached a cap, charging no window", async () => {
    const { forRequest, calls } = setup();
    const capped = { capReached: { cap: "bytesPerMonth" as const, limit: 9, untilMs: NOW + 60_000 } };
    const limits = forRequest("203.0.113.9", capped);
    await expect(limits.admitTransform()).rejects.toMatchObject({ code: "SPEND_CAP_REACHED", status: 429 });
    expect(calls).toEqual([]);
  });

  it("passes its own refusal on, and any other failure, without trying again", async () => {
    const { forRequest } = setup(undefined, { perMinute: 1, perDay: 100 });
    await forRequest("203.0.113.1").admitTransform();
    let attempts = 0;
    const own = withinLimits(forRequest("203.0.113.2"), async (admit) => {
      attempts++;
      await admit();
      return "never";
    });
    expect(await status(own)).toBe(429);
    const failing = withinLimits(forRequest(), async () => {
      attempts++;
      throw new AppError("SOURCE_NOT_FOUND");
    });
    await expect(failing).rejects.toMatchObject({ code: "SOURCE_NOT_FOUND" });
    expect(attempts).toBe(2);
  });
});

describe("the address a window counts", () => {
  it.each([
    ["203.0.113.9", "203.0.113.9"],
    ["2001:db8:1:2::", "2001:db8:1:2::"],
    ["unknown", null],
    ["127.0.0.1", null],
    ["0:0:0:0::", null], // ::1 as client-address.ts reduces it to its /64
    ["10.20.30.40", null],
    ["172.31.0.1", null],
    ["192.168.1.1", null],
    ["169.254.1.1", null],
    ["100.64.0.1", null],
    ["fd12:3456:789a:1::", null],
    ["fe80:0:0:0::", null],
    ["::ffff:10.0.0.1", null],
    ["not an address", null],
  ])("%s → %s", (address, expected) => {
    expect(addressSubject(address)).toBe(expected);
  });
});

describe("defaults", () => {
  it("gives each address 1,200 requests and 120 transforms a minute, from the environment and without it, and 0 turns one off", () => {
    const env = parseEnv({});
    expect([env.OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE, env.OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE]).toEqual([1200, 120]);
    expect(DEFAULT_ADDRESS_LIMITS).toEqual({ requestsPerMinute: 1200, transformsPerMinute: 120 });
    expect(parseEnv({ OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE: "0" }).OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE).toBe(0);
    expect(() => parseEnv({ OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE: "-1" })).toThrow(
      /OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE/,
    );
  });
});
