import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ProjectTitle } from "@/components/shell/project-heading";

describe("a project page's heading", () => {
  it("is the project's name, its slug (what its URLs carry) beside it", () => {
    const html = renderToStaticMarkup(createElement(ProjectTitle, { name: "Marketing Website", slug: "website" }));
    expect(html).toMatch(/<h1[^>]*>Marketing Website<\/h1>/);
    expect(html).toMatch(/<p[^>]*font-mono[^>]*>website<\/p>/);
  });
});
