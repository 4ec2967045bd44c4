import { describe, expect, it, vi } from "vitest";
import { AppError, errorCatalogue, refusingField, toAppError, type ErrorCode } from "@/server/errors";
import type * as ErrorsModule from "@/server/errors";
import { errorResponse } from "@/server/wire/error-response";

describe("error catalogue", () => {
  it("maps every code to the contract's status family and a non-empty public message", () => {
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      expect(entry.message.length, code).toBeGreaterThan(0);
      expect([400, 401, 403, 404, 409, 410, 413, 415, 422, 429, 499, 500, 502, 503, 504]).toContain(entry.status);
    }
  });

  it("gives the three policy refusals one public code and message, keeping the cause for the log", () => {
    const codes: ErrorCode[] = ["SIGNATURE_INVALID", "REFERER_NOT_ALLOWED", "SOURCE_NOT_ALLOWED"];
    const errors = codes.map((code) => new AppError(code));
    expect(new Set(errors.map((e) => `${e.status} ${e.publicCode} ${e.publicMessage}`)).size).toBe(1);
    expect(errors.map((e) => e.logStatus)).toEqual(["sig_invalid", "referer_blocked", "source_blocked"]);
    expect(new AppError("SIGNATURE_EXPIRED").publicMessage).toBe("Signature has expired");
  });

  it("turns unknown throwables into INTERNAL without exposing their message", async () => {
    const error = toAppError(new Error("db password is hunter2"));
    expect(error.code).toBe("INTERNAL");
    const response = errorResponse(error, "req-1");
    const body = await response.text();
    expect(body).not.toContain("hunter2");
    expect(JSON.parse(body)).toEqual({ error: "Internal server error", code: "INTERNAL", requestId: "req-1" });
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("answers HEAD with headers only and passes error headers through", async () => {
    const response = errorResponse(new AppError("OVERLOADED", { headers: { "Retry-After": "1" } }), "r", "HEAD");
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.text()).toBe("");
  });
});

describe("sampled logging", () => {
  it("writes a repeated event once per interval and says how many were suppressed", async () => {
    const { createLogger, createSampledLogger } = await import("@/server/log");
    const lines: string[] = [];
    let clock = 0;
    const log = createSampledLogger(
      createLogger("debug", (l) => lines.push(l)),
      10_000,
      () => clock,
    );
    for (let i = 0; i < 5; i++) log("usage", "error", "usage increment lost");
    log("other", "warn", "redis unavailable");
    clock = 10_001;
    log("usage", "error", "usage increment lost");
    expect(lines.map((l) => JSON.parse(l).message)).toEqual([
      "usage increment lost",
      "redis unavailable",
      "usage increment lost",
    ]);
    expect(JSON.parse(lines[2]!).suppressedSinceLast).toBe(4);
  });
});

describe("AppError across copies of the module", () => {
  it("is recognised when thrown by another copy, as Next's separate bundles make them", async () => {
    vi.resetModules();
    const other = (await import("@/server/errors")) as typeof ErrorsModule;
    expect(other.AppError).not.toBe(AppError);
    const thrown = new other.AppError("SOURCE_NOT_FOUND", { detail: "origin answered 404" });
    expect(thrown instanceof AppError).toBe(true);
    expect(toAppError(thrown)).toBe(thrown);
    expect(toAppError(thrown).status).toBe(404);
    expect(new Error("plain") instanceof AppError).toBe(false);
    expect(toAppError({ code: "SOURCE_NOT_FOUND" }).code).toBe("INTERNAL");
  });
});

describe("refusingField", () => {
  it("names the field of a refusal and keeps its code, status, message and headers", () => {
    const refused = new AppError("RATE_LIMITED", { message: "Slow down", headers: { "Retry-After": "3" } });
    let caught: unknown;
    try {
      refusingField("operations", () => {
        throw refused;
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect(caught).toMatchObject({
      code: "RATE_LIMITED",
      status: 429,
      publicMessage: "Slow down",
      headers: { "Retry-After": "3" },
      field: "operations",
      cause: refused,
    });
    expect(refusingField("source", () => 42)).toBe(42);
  });

  it("lets a bug and a server failure through untouched", () => {
    const bug = new TypeError("x is undefined");
    expect(() =>
      refusingField("source", () => {
        throw bug;
      }),
    ).toThrow(bug);
    const failure = new AppError("INTERNAL");
    try {
      refusingField("source", () => {
        throw failure;
      });
    } catch (error) {
      expect(error).toBe(failure);
    }
    expect.assertions(2);
  });
});
