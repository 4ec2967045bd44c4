import { describe, expect, it } from "vitest";
import { formErrors } from "@/lib/forms";

const refusal = (fieldErrors: Record<string, string[]> | null) => ({ message: "Invalid input", data: { fieldErrors } });

describe("form errors", () => {
  it("puts each shown field's first message next to it, and nothing at form level when all are shown", () => {
    const split = formErrors(refusal({ name: ["Too long", "Bad"], slug: ["Taken"] }), ["name", "slug"] as const);
    expect(split).toEqual({ field: { name: "Too long", slug: "Taken" }, form: null });
  });

  it("says at form level what belongs to fields the form does not show, and only that", () => {
    const error = refusal({ name: ["Too long"], allowedRefererHosts: ["Too many"] });
    expect(formErrors(error, ["name"] as const)).toEqual({
      field: { name: "Too long" },
      form: { message: "Too many" },
    });
  });

  it("leaves a refusal without field errors (not found, conflict) to the form, and no error to nobody", () => {
    const conflict = { message: "That slug is taken", data: { fieldErrors: null } };
    expect(formErrors(conflict, ["slug"] as const)).toEqual({ field: {}, form: conflict });
    expect(formErrors(null, ["slug"] as const)).toEqual({ field: {}, form: null });
  });
});
