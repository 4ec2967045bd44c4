import { describe, expect, it } from "vitest";
import { oneLine, quoted } from "@/server/mail/plain-text";

describe("tenant text in a plain-text mail", () => {
  it("stays on one line: line breaks and other control characters are shown as escapes", () => {
    expect(oneLine("a\r\nBcc: x@example.com")).toBe(String.raw`a\r\nBcc: x@example.com`);
    expect(oneLine("tab\there\u0000\u001b[31m\u0085\u2028\u2029")).toBe(
      String.raw`tab\there\u0000\u001b[31m\u0085\u2028\u2029`,
    );
  });

  it("shows the invisible characters that reorder or hide text", () => {
    // "exe.png" written backwards by a right-to-left override reads as a harmless name.
    expect(oneLine("invoice\u202egnp.exe")).toBe(String.raw`invoice\u202egnp.exe`);
    expect(oneLine("a\u2066b\u2069\u200bc\u200e\u200f\u061c\ufeff")).toBe(
      String.raw`a\u2066b\u2069\u200bc\u200e\u200f\u061c\ufeff`,
    );
  });

  it("leaves every other character as it is: markup, accents, scripts and emoji", () => {
    for (const text of ["<img src=x onerror=alert(1)>", "Café Zürich", "東京チーム", "فريق", "👩‍👩‍👧 team"])
      expect(oneLine(text)).toBe(text);
  });

  it("quotes a name so that it ends where its quotes do", () => {
    expect(quoted('Acme" and "Other')).toBe(String.raw`"Acme\" and \"Other"`);
    expect(quoted("back\\slash\n")).toBe(String.raw`"back\\slash\n"`);
  });
});
