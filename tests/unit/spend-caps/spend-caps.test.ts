import { describe, expect, it } from "vitest";
import { spendCapFormSchema, spendCapFormValues, spendCapSchema } from "@/lib/schemas/spend-cap";
import { periodOf } from "@/server/spend-caps/periods";
import { capRefusal } from "@/server/spend-caps/refusal";
import { bindingCap, capUses } from "@/server/spend-caps/spending";

const NO_CAP = { transformsPerDay: null, transformsPerMonth: null, bytesPerDay: null, bytesPerMonth: null };
const spent = { transformsPerDay: 0, transformsPerMonth: 0, bytesPerDay: 0, bytesPerMonth: 0 };

describe("spend-cap periods", () => {
  it("are UTC days and months, the year turning at December's end", () => {
    const at = new Date("2026-12-31T23:59:59.999Z");
    expect(periodOf("day", at)).toEqual({
      start: new Date("2026-12-31T00:00:00Z"),
      end: new Date("2027-01-01T00:00:00Z"),
    });
    expect(periodOf("month", at)).toEqual({
      start: new Date("2026-12-01T00:00:00Z"),
      end: new Date("2027-01-01T00:00:00Z"),
    });
    expect(periodOf("month", new Date("2028-02-29T12:00:00Z")).end).toEqual(new Date("2028-03-01T00:00:00Z"));
  });
});

describe("the cap that binds", () => {
  const now = new Date("2026-12-10T15:00:00Z");
  it("is none under every cap, the one reached, and of two reached the one that holds longest", () => {
    const cap = { ...NO_CAP, transformsPerDay: 10, bytesPerMonth: 1000 };
    expect(bindingCap(capUses({ cap, spent: { ...spent, transformsPerDay: 9, bytesPerMonth: 999 } }), now)).toBeNull();
    expect(bindingCap(capUses({ cap, spent: { ...spent, transformsPerDay: 10 } }), now)).toMatchObject({
      use: { cap: "transformsPerDay", limit: 10, spent: 10, percent: 100 },
      until: new Date("2026-12-11T00:00:00Z"),
    });
    expect(
      bindingCap(capUses({ cap, spent: { ...spent, transformsPerDay: 12, bytesPerMonth: 5000 } }), now),
    ).toMatchObject({ use: { cap: "bytesPerMonth", percent: 500 }, until: new Date("2027-01-01T00:00:00Z") });
  });

  it("lists only the caps a key has, with their share floored", () => {
    expect(capUses({ cap: { ...NO_CAP, transformsPerMonth: 3 }, spent: { ...spent, transformsPerMonth: 2 } })).toEqual([
      { cap: "transformsPerMonth", limit: 3, spent: 2, percent: 66 },
    ]);
  });
});

describe("a capped key's refusal", () => {
  const until = Date.UTC(2027, 0, 1);
  const key = { capReached: { cap: "bytesPerMonth" as const, limit: 5_000_000, untilMs: until } };

  it("is a 429 with the rate limit's headers until the period ends, and nothing from its end on", () => {
    const nowMs = until - 90_500;
    const refusal = capRefusal(key, nowMs)!;
    expect(refusal).toMatchObject({ code: "SPEND_CAP_REACHED", status: 429 });
    expect(refusal.publicMessage).toBe(
      "This key reached its cap of 5,000,000 bytes delivered a month: new images are refused until 2027-01-01T00:00:00.000Z, images already made are still served",
    );
    expect(refusal.headers).toEqual({
      "Retry-After": "91",
      "X-RateLimit-Limit": "5000000",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(until / 1000),
    });
    expect(capRefusal(key, until)).toBeNull();
    expect(capRefusal({ capReached: null }, nowMs)).toBeNull();
  });
});

describe("the caps' fields", () => {
  it("give a cap set in bytes back exactly, in megabytes to the byte", () => {
    const cap = { ...NO_CAP, bytesPerDay: 400_001, bytesPerMonth: 1_400_000 };
    const shown = spendCapFormValues(cap);
    expect(shown).toMatchObject({ bytesPerDay: "0.400001", bytesPerMonth: "1.4" });
    expect(spendCapFormSchema.parse(shown)).toEqual(cap);
  });

  it("read megabytes into bytes, empty as no cap, and give a stored cap back as typed", () => {
    const typed = { transformsPerDay: "", transformsPerMonth: " 2000 ", bytesPerDay: "", bytesPerMonth: "750" };
    const cap = spendCapFormSchema.parse(typed);
    expect(cap).toEqual({ ...NO_CAP, transformsPerMonth: 2000, bytesPerMonth: 750_000_000 });
    expect(spendCapFormValues(cap)).toEqual({ ...typed, transformsPerMonth: "2000" });
    expect(spendCapFormValues(null)).toEqual({
      transformsPerDay: "",
      transformsPerMonth: "",
      bytesPerDay: "",
      bytesPerMonth: "",
    });
  });

  it("refuse a day above the month at the day's field, and what is not a whole number in bounds", () => {
    const refused = (input: object) => spendCapFormSchema.safeParse({ ...spendCapFormValues(null), ...input }).error;
    expect(refused({ bytesPerDay: "20", bytesPerMonth: "10" })!.issues).toEqual([
      expect.objectContaining({ path: ["bytesPerDay"], message: "A day's bytes cannot be capped above the month's" }),
    ]);
    for (const text of ["0", "0.0000001", "1e3", "-2", "lots", "1000000001"])
      expect(refused({ bytesPerMonth: text })!.issues[0]!.path, text).toEqual(["bytesPerMonth"]);
    expect(spendCapSchema.safeParse({ ...NO_CAP, transformsPerDay: 10 ** 11 }).success).toBe(false);
  });
});
