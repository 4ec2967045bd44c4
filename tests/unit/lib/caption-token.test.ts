import { describe, expect, it } from "vitest";
import { parseOperations } from "@/server/image";
import { captionOf, withCaption } from "@/lib/caption-token";

/** The dashboard's caption field: what it writes is what the server reads back, and the other tokens stay. */
describe("captionOf and withCaption", () => {
  it("writes the caption the server decodes to the same text, after the other tokens", () => {
    for (const text of ["Hi", "€ 12,99/kg", "שלום עולם", "e\u0301\n🙂", "<b>&amp;</b>"]) {
      const segment = withCaption("w_640,f_auto", text);
      expect(segment.startsWith("w_640,f_auto,txt_")).toBe(true);
      expect(parseOperations(segment).text).toBe(text);
      expect(captionOf(segment)).toBe(text);
    }
  });

  it("replaces a caption rather than adding a second, and removes it", () => {
    const once = withCaption("w_640,txt_SGk,f_auto", "Bye");
    expect(once).toBe("w_640,f_auto,txt_Qnll");
    expect(withCaption(once, null)).toBe("w_640,f_auto");
    expect(withCaption("txt_SGk", null)).toBe("_");
    expect(withCaption("_", "Hi")).toBe("txt_SGk");
    expect(withCaption("", "Hi")).toBe("txt_SGk");
  });

  it("reads the last caption, as the server does, and none from a value that is not UTF-8 base64url", () => {
    expect(captionOf("txt_SGk,w_10,txt_Qnll")).toBe("Bye");
    expect(captionOf("w_10")).toBeNull();
    expect(captionOf("_")).toBeNull();
    expect(captionOf("txt__w")).toBeNull(); // 0xff
    expect(captionOf("txt_SG+k")).toBeNull();
    expect(captionOf("txt_")).toBeNull();
  });

  it("refuses what the server would refuse, with the kit's reason", () => {
    expect(() => withCaption("w_10", "")).toThrow(/1–200 characters/);
    expect(() => withCaption("w_10", "x".repeat(201))).toThrow(/1–200 characters/);
    expect(() => withCaption("w_10", "\u200b")).toThrow(/something to see/);
    expect(() => withCaption("w_10", "a\tb")).toThrow(/control characters/);
  });
});
