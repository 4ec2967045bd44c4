import { describe, expect, it } from "vitest";
import { clientAddress, PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";

const headers = (entries: Record<string, string>) => new Headers(entries);

describe("the client address", () => {
  it("is the socket's address with no proxy in front, whatever X-Forwarded-For claims", () => {
    const spoofed = headers({
      [PEER_ADDRESS_HEADER]: "203.0.113.9",
      "x-forwarded-for": "198.51.100.1",
      "x-real-ip": "198.51.100.2",
    });
    expect(clientAddress(spoofed, 0)).toBe("203.0.113.9");
  });

  it.each([
    ["one proxy, client sent nothing", "203.0.113.9", 1, "203.0.113.9"],
    ["one proxy, client forged an entry", "198.51.100.1, 203.0.113.9", 1, "203.0.113.9"],
    ["two proxies, client forged two entries", "198.51.100.1, 198.51.100.2, 203.0.113.9, 10.0.0.2", 2, "203.0.113.9"],
    ["fewer entries than proxies (a hop was bypassed)", "203.0.113.9", 2, "10.0.0.1"],
  ])("with proxies in front is the entry the outermost proxy appended: %s", (_case, forwarded, hops, expected) => {
    expect(clientAddress(headers({ [PEER_ADDRESS_HEADER]: "10.0.0.1", "x-forwarded-for": forwarded }), hops)).toBe(
      expected,
    );
  });

  it("falls back to the last X-Forwarded-For entry when the server did not stamp the socket's address (next dev)", () => {
    expect(clientAddress(headers({ "x-forwarded-for": "198.51.100.1, 127.0.0.1" }), 0)).toBe("127.0.0.1");
    expect(clientAddress(headers({}), 0)).toBe("unknown");
  });

  it.each([
    ["::ffff:203.0.113.9", "203.0.113.9"],
    ["2001:DB8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::"],
    ["2001:db8:1:2::1", "2001:db8:1:2::"],
    ["::1", "0:0:0:0::"],
    ["not an address", "unknown"],
    ["x".repeat(500), "unknown"],
  ])("identifies %s as %s (an IPv6 subscriber holds a whole /64)", (given, expected) => {
    expect(clientAddress(headers({ [PEER_ADDRESS_HEADER]: given }), 0)).toBe(expected);
  });
});
