import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Select } from "@/components/ui/select";

const option = createElement("option", { value: "member" }, "member");

describe("Select", () => {
  it("shows a form's message under it and marks itself invalid", () => {
    const html = renderToStaticMarkup(createElement(Select, { name: "role", error: "Choose a role" }, option));
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('<span role="alert" class="mt-1 block text-xs text-danger">Choose a role</span>');
  });

  it("is a plain select without one", () => {
    const html = renderToStaticMarkup(createElement(Select, { name: "role" }, option));
    expect(html).not.toContain("aria-invalid");
    expect(html).not.toContain("alert");
    expect(html).toMatch(/^<select [^>]*name="role"[^>]*><option value="member">member<\/option><\/select>$/);
  });
});
