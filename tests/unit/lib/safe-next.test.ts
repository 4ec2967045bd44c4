import { describe, expect, it } from "vitest";
import { safeNext } from "@/lib/safe-next";

const ORIGIN = "https://img.example.com";

describe("the path followed after sign-in (safeNext)", () => {
  it.each([
    ["//evil.example", "protocol-relative"],
    ["/\\evil.example", "a backslash browsers read as a slash"],
    ["\\\\evil.example", "two backslashes"],
    ["/\t/evil.example", "a tab browsers strip (?next=/%09/evil.example decoded once)"],
    ["/\n/evil.example", "a newline browsers strip"],
    ["/\r\n/evil.example", "CR LF"],
    [" //evil.example", "leading space browsers strip"],
    ["/./\\evil.example", "a dot segment before a backslash"],
    ["/.//evil.example", "a dot segment that leaves // after normalisation"],
    ["/..//evil.example", "a dot-dot segment that leaves // after normalisation"],
    ["https://evil.example/t/acme", "an absolute URL elsewhere"],
    ["http:evil.example", "another scheme without slashes"],
    ["http://img.example.com/t/acme", "our host over another scheme"],
    ["https://img.example.com@evil.example/", "our host as credentials"],
    ["javascript:alert(1)", "script"],
    ["data:text/html,<script>alert(1)</script>", "data"],
    ["", "empty"],
  ])("refuses %j (%s), falling back to /", (value) => {
    expect(safeNext(value, ORIGIN)).toBe("/");
  });

  it.each([
    ["/t/acme", "/t/acme"],
    ["/t/acme/p/blog/keys?tab=active#new", "/t/acme/p/blog/keys?tab=active#new"],
    ["/invite/abc123", "/invite/abc123"],
    ["/%09/evil.example", "/%09/evil.example"], // an escape that is never decoded again stays a path
    ["/a/../t/acme", "/t/acme"],
    ["https:evil.example", "/evil.example"], // our own scheme without slashes is a relative reference
    ["https://img.example.com/t/acme?x=1", "/t/acme?x=1"],
  ])("keeps %j as %j", (value, expected) => {
    expect(safeNext(value, ORIGIN)).toBe(expected);
  });

  it("takes the first of repeated parameters, and / when there is none", () => {
    expect(safeNext(["/t/a", "//evil.example"], ORIGIN)).toBe("/t/a");
    expect(safeNext(undefined, ORIGIN)).toBe("/");
    expect(safeNext([], ORIGIN)).toBe("/");
  });
});
