import { describe, expect, it } from "vitest";
import { editedExpiry, expiryFrom, initialExpiry } from "@/components/keys/expiry";

/**
 * The Edit dialog shows a key's expiry as a day; sending that day back as 23:59:59 would move the expiry
 * (and stretch a rotation's grace period) without anyone asking. It sends the expiry only when changed.
 */
describe("the Edit dialog's expiry", () => {
  const expiresAt = new Date("2027-03-05T14:23:00Z");

  it("shows a key's expiry as its day, and never as never", () => {
    expect(initialExpiry(expiresAt)).toEqual({ choice: "custom", date: "2027-03-05" });
    expect(initialExpiry(null)).toEqual({ choice: "never", date: "" });
  });

  it("sends nothing when the expiry was left as it was", () => {
    expect(editedExpiry(expiresAt, initialExpiry(expiresAt))).toBeUndefined();
    expect(editedExpiry(null, initialExpiry(null))).toBeUndefined();
  });

  it("sends the new expiry when it was changed", () => {
    expect(editedExpiry(expiresAt, { choice: "custom", date: "2027-03-06" })).toEqual(new Date("2027-03-06T23:59:59Z"));
    expect(editedExpiry(expiresAt, { choice: "never", date: "2027-03-05" })).toBeNull();
    const inThirty = editedExpiry(null, { choice: "30", date: "" });
    expect(inThirty!.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(expiryFrom("custom", "2027-03-05")).toEqual(new Date("2027-03-05T23:59:59Z"));
  });
});
