import { describe, expect, it } from "vitest";
import {
  CDN_SECRET_HEADER,
  clientAddress,
  directClients,
  PEER_ADDRESS_HEADER,
  type ClientAddressPolicy,
} from "@/server/ratelimit/client-address";

const headers = (entries: Record<string, string>) => new Headers(entries);
const proxies = (trustedHops: number): ClientAddressPolicy => ({ ...directClients, trustedHops });

describe("the client address", () => {
  it("is the socket's address with no proxy in front, whatever X-Forwarded-For claims", () => {
    const spoofed = headers({
      [PEER_ADDRESS_HEADER]: "203.0.113.9",
      "x-forwarded-for": "198.51.100.1",
      "x-real-ip": "198.51.100.2",
    });
    expect(clientAddress(spoofed, directClients)).toBe("203.0.113.9");
  });

  it.each([
    ["one proxy, client sent nothing", "203.0.113.9", 1, "203.0.113.9"],
    ["one proxy, client forged an entry", "198.51.100.1, 203.0.113.9", 1, "203.0.113.9"],
    ["two proxies, client forged two entries", "198.51.100.1, 198.51.100.2, 203.0.113.9, 10.0.0.2", 2, "203.0.113.9"],
    ["fewer entries than proxies (a hop was bypassed)", "203.0.113.9", 2, "10.0.0.1"],
  ])("with proxies in front is the entry the outermost proxy appended: %s", (_case, forwarded, hops, expected) => {
    expect(
      clientAddress(headers({ [PEER_ADDRESS_HEADER]: "10.0.0.1", "x-forwarded-for": forwarded }), proxies(hops)),
    ).toBe(expected);
  });

  it("falls back to the last X-Forwarded-For entry when the server did not stamp the socket's address (next dev)", () => {
    expect(clientAddress(headers({ "x-forwarded-for": "198.51.100.1, 127.0.0.1" }), directClients)).toBe("127.0.0.1");
    expect(clientAddress(headers({}), directClients)).toBe("unknown");
  });

  it.each([
    ["::ffff:203.0.113.9", "203.0.113.9"],
    ["2001:DB8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::"],
    ["2001:db8:1:2::1", "2001:db8:1:2::"],
    ["::1", "0:0:0:0::"],
    ["not an address", "unknown"],
    ["x".repeat(500), "unknown"],
  ])("identifies %s as %s (an IPv6 subscriber holds a whole /64)", (given, expected) => {
    expect(clientAddress(headers({ [PEER_ADDRESS_HEADER]: given }), directClients)).toBe(expected);
  });

  it("is, on Vercel, the address its edge wrote into X-Forwarded-For: a peer header there is the client's own claim", () => {
    const vercel: ClientAddressPolicy = { ...directClients, vercel: true };
    const spoofing = headers({ [PEER_ADDRESS_HEADER]: "198.51.100.77", "x-forwarded-for": "203.0.113.9" });
    expect(clientAddress(spoofing, vercel)).toBe("203.0.113.9");
    // Hops configured as for a CDN in front change nothing: Vercel keeps one entry.
    expect(clientAddress(spoofing, { ...vercel, trustedHops: 2 })).toBe("203.0.113.9");
  });

  it("believes a CDN's client header only with the shared secret; without it, the address that reached us counts", () => {
    const secret = "s".repeat(40);
    const cdn: ClientAddressPolicy = {
      trustedHops: 0,
      vercel: true,
      cdn: { addressHeader: "cf-connecting-ip", secret },
    };
    const viaCdn = { "x-forwarded-for": "198.51.100.200", "cf-connecting-ip": "203.0.113.9" };
    expect(clientAddress(headers({ ...viaCdn, [CDN_SECRET_HEADER]: secret }), cdn)).toBe("203.0.113.9");
    // Around the CDN: a client naming itself, with no secret or a wrong one, is counted by its own address.
    expect(clientAddress(headers(viaCdn), cdn)).toBe("198.51.100.200");
    expect(clientAddress(headers({ ...viaCdn, [CDN_SECRET_HEADER]: "s".repeat(39) + "t" }), cdn)).toBe(
      "198.51.100.200",
    );
    expect(clientAddress(headers({ ...viaCdn, [CDN_SECRET_HEADER]: "short" }), cdn)).toBe("198.51.100.200");
    // The CDN's header holds what the CDN wrote; anything but an address is no identity.
    expect(clientAddress(headers({ [CDN_SECRET_HEADER]: secret, "cf-connecting-ip": "x".repeat(300) }), cdn)).toBe(
      "unknown",
    );
  });
});
