import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { When } from "@/components/ui/when";

/**
 * The server knows neither the viewer's locale nor zone: it writes UTC, marked as such, with the
 * instant in `dateTime` and UTC on hover; the browser rewrites the text after hydration (the browser
 * test reads it there).
 */
describe("a moment as the server writes it", () => {
  it("an instant: UTC to the minute, or the second, with its ISO form and UTC title", () => {
    expect(renderToStaticMarkup(createElement(When, { at: new Date("2026-11-23T14:05:30.250Z") }))).toBe(
      '<time dateTime="2026-11-23T14:05:30.250Z" title="2026-11-23 14:05 UTC">2026-11-23 14:05 UTC</time>',
    );
    expect(renderToStaticMarkup(createElement(When, { at: "2026-11-23T14:05:30Z", seconds: true }))).toBe(
      '<time dateTime="2026-11-23T14:05:30.000Z" title="2026-11-23 14:05:30 UTC">2026-11-23 14:05:30 UTC</time>',
    );
  });

  it("a usage day: the UTC date, said to be one", () => {
    expect(renderToStaticMarkup(createElement(When, { day: "2026-11-23" }))).toBe(
      '<time dateTime="2026-11-23" title="2026-11-23 (UTC day)">2026-11-23</time>',
    );
  });
});
