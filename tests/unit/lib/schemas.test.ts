import { describe, expect, it } from "vitest";
import { z } from "zod";
import { signInSchema, signUpSchema } from "@/lib/schemas/account";
import { keyFormSchema, newKeyFormSchema, rotateFormSchema } from "@/lib/schemas/api-key";
import { customRangeSchema } from "@/lib/schemas/date-range";
import { signUrlFormSchema } from "@/lib/schemas/developer";
import { projectFormSchema } from "@/lib/schemas/project";

/** The first message per field, as a form shows it. */
function refused(schema: z.ZodType, value: unknown): Record<string, string | undefined> {
  const result = schema.safeParse(value);
  if (result.success) return {};
  const { fieldErrors } = z.flattenError(result.error) as { fieldErrors: Record<string, string[]> };
  return Object.fromEntries(Object.entries(fieldErrors).map(([field, messages]) => [field, messages[0]]));
}

describe("form schemas", () => {
  it("turn a project's host text into the entries the procedure takes", () => {
    const parsed = projectFormSchema.parse({
      name: " Website ",
      slug: "website",
      allowedSourceHosts: "cdn.example.com\n\n img.example.com , *.example.org",
      allowedRefererHosts: "",
    });
    expect(parsed).toEqual({
      name: "Website",
      slug: "website",
      allowedSourceHosts: ["cdn.example.com", "img.example.com", "*.example.org"],
      allowedRefererHosts: [],
    });
    const tooMany = Array.from({ length: 101 }, (_, i) => `h${i}.example.com`).join("\n");
    expect(
      refused(projectFormSchema, { name: "W", slug: "Web Site", allowedSourceHosts: tooMany, allowedRefererHosts: "" }),
    ).toEqual({
      slug: "Slug may contain lowercase letters, digits and inner hyphens only",
      allowedSourceHosts: "At most 100 hosts",
    });
    // An entry's bound is the field's message: a form shows messages per field, not per entry.
    expect(
      refused(projectFormSchema, {
        name: "W",
        slug: "w1",
        allowedSourceHosts: "a".repeat(301),
        allowedRefererHosts: "",
      }),
    ).toEqual({ allowedSourceHosts: "A host entry has at most 300 characters" });
  });

  it("read an empty key limit as the default and refuse what is not a whole number in bounds", () => {
    const base = { name: "web", choice: "never", date: "" };
    expect(keyFormSchema.parse({ ...base, rateLimitPerMinute: " ", rateLimitPerDay: "5000" })).toMatchObject({
      rateLimitPerMinute: null,
      rateLimitPerDay: 5000,
    });
    for (const text of ["0", "1.5", "abc", "100001", "-3"])
      expect(refused(keyFormSchema, { ...base, rateLimitPerMinute: text, rateLimitPerDay: "" })).toEqual({
        rateLimitPerMinute: "Enter a whole number from 1 to 100,000",
      });
  });

  it("ask for the day when a key expires on a date", () => {
    expect(refused(newKeyFormSchema, { name: "web", choice: "custom", date: "" })).toEqual({
      date: "Choose the day the key expires",
    });
    expect(newKeyFormSchema.parse({ name: "web", choice: "custom", date: "2030-01-31" }).date).toBe("2030-01-31");
    expect(refused(newKeyFormSchema, { name: "", choice: "30", date: "" })).toEqual({ name: "Name is required" });
  });

  it("take a rotation's grace from its select, and refuse none or more than 30 days", () => {
    expect(rotateFormSchema.parse({ graceSeconds: "86400" })).toEqual({ graceSeconds: 86_400 });
    expect(rotateFormSchema.parse({ graceSeconds: "0" })).toEqual({ graceSeconds: 0 });
    // An empty value is not "no grace": Number("") would have ended the old key at once.
    expect(refused(rotateFormSchema, { graceSeconds: "" })).toEqual({ graceSeconds: "Choose a grace period" });
    expect(refused(rotateFormSchema, { graceSeconds: String(31 * 86_400) })).toEqual({
      graceSeconds: "A grace period is at most 30 days",
    });
  });

  it("turn the tester's lifetime choice into seconds, never into null", () => {
    const base = { keyId: "0f8c3c57-4a4f-4b8e-9d55-2f6f4b5a3c21", operations: "w_10", source: "a.example/x.jpg" };
    expect(signUrlFormSchema.parse({ ...base, expiresInSeconds: "3600" }).expiresInSeconds).toBe(3600);
    expect(signUrlFormSchema.parse({ ...base, expiresInSeconds: "never" }).expiresInSeconds).toBeNull();
    expect(refused(signUrlFormSchema, { ...base, source: "  ", expiresInSeconds: "999999999" })).toEqual({
      source: "Enter a source",
      expiresInSeconds: expect.any(String),
    });
  });

  it("refuse a custom range that ends before it starts, at its end", () => {
    expect(refused(customRangeSchema, { from: "2026-05-02", to: "2026-05-01" })).toEqual({
      to: "The start date must not be after the end date",
    });
    expect(customRangeSchema.parse({ from: "2026-05-01", to: "2026-05-01" })).toEqual({
      from: "2026-05-01",
      to: "2026-05-01",
    });
  });

  it("hold sign-up to the auth server's password bounds, and sign-in only to presence", () => {
    const person = { name: "Ada", email: " Ada@Example.COM " };
    expect(refused(signUpSchema, { ...person, password: "short" })).toEqual({ password: "Use at least 10 characters" });
    expect(signUpSchema.parse({ ...person, password: "long enough!" }).email).toBe("ada@example.com");
    expect(refused(signUpSchema, { ...person, password: "x".repeat(129) })).toEqual({
      password: "Use at most 128 characters",
    });
    expect(refused(signInSchema, { name: "", email: "", password: "" })).toEqual({
      email: "Enter your email address",
      password: "Enter your password",
    });
  });
});
