import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { normaliseRefererHosts, normaliseSourceHosts } from "@/server/tenancy/source-hosts";

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("not refused");
}

describe("host lists as a project stores them", () => {
  it("keeps the canonical entries, in order, without duplicates", () => {
    expect(
      normaliseSourceHosts(["CDN.Example.com.", "local", "", "cdn.example.com", "https://a.example:8443"]),
    ).toEqual(["cdn.example.com", "local", "https://a.example:8443"]);
    expect(normaliseRefererHosts(["https://Shop.example/", "*.example.org", "*"])).toEqual([
      "shop.example",
      "*.example.org",
      "*",
    ]);
  });

  it("names one refused entry and why, at its field", () => {
    const one = refusal(() => normaliseSourceHosts(["cdn.example.com", "10.0.0.5"]));
    expect(one).toMatchObject({ code: "INVALID_INPUT", field: "allowedSourceHosts", status: 400 });
    expect(one.publicMessage).toBe(
      '"10.0.0.5" is not a valid source host: private, loopback and reserved addresses are not allowed',
    );
  });

  it("names every refused source host, grouped by reason, not only the first", () => {
    const all = refusal(() =>
      normaliseSourceHosts(["10.0.0.5", "cdn.example.com", "localhost", "192.168.1.1", "ftp://x", "10.0.0.5"]),
    );
    expect(all).toMatchObject({ code: "INVALID_INPUT", field: "allowedSourceHosts" });
    expect(all.publicMessage).toBe(
      '4 source hosts are not valid: "10.0.0.5" and "192.168.1.1" (private, loopback and reserved addresses are not allowed); ' +
        '"localhost" (local and internal host names are not allowed); ' +
        '"ftp://x" (use a host such as cdn.example.com, *.example.com, https://cdn.example.com:8443, * or local)',
    );
  });

  it("names every refused referer host too", () => {
    const all = refusal(() =>
      normaliseRefererHosts(["local", "shop.example", "127.0.0.1", "metadata.google.internal"]),
    );
    expect(all).toMatchObject({ code: "INVALID_INPUT", field: "allowedRefererHosts" });
    expect(all.publicMessage).toBe(
      '3 referer hosts are not valid: "local" (use a host such as example.com, *.example.com or *); ' +
        '"127.0.0.1" (private, loopback and reserved addresses are not allowed); ' +
        '"metadata.google.internal" (local and internal host names are not allowed)',
    );
  });
});
