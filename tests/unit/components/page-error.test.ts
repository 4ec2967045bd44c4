import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import AppError from "@/app/error";
import GlobalError from "@/app/global-error";
import TeamError from "@/app/t/[team]/error";

const failure = Object.assign(new Error("connect ECONNREFUSED postgres://app:hunter2@10.0.0.5/optstuff"), {
  digest: "2817493",
});

describe("error boundaries", () => {
  for (const [name, boundary] of [
    ["team pages", TeamError],
    ["other pages", AppError],
    ["the root layout", GlobalError],
  ] as const) {
    it(`for ${name} give the log's reference and a retry, never the error's message`, () => {
      const html = renderToStaticMarkup(createElement(boundary, { error: failure, reset: () => undefined }));
      expect(html).toContain("This page could not be loaded");
      expect(html).toContain("Reference: 2817493");
      expect(html).toContain("Try again</button>");
      expect(html).not.toContain("hunter2");
      expect(html).not.toContain("ECONNREFUSED");
    });
  }
});
