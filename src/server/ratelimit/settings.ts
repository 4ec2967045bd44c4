import { z } from "zod";
import { DEFAULT_RATE_LIMIT_PER_DAY, DEFAULT_RATE_LIMIT_PER_MINUTE } from "@/server/config-cache/key-limits";
import type { PlatformValues } from "@/server/config/platform-settings";
import { group, integer, parsed, type ValuesOf } from "@/server/config/setting";
import type { ClientAddressPolicy } from "./client-address";

/** Who the client is, and what one client address may spend (docs/architecture.md, rate limiting). */
export const rateLimitSettings = group("Client addresses and rate limits", {
  OPTSTUFF_TRUSTED_PROXY_HOPS: integer({
    default: 0,
    min: 0,
    doc: "Reverse proxies in front, each appending to `X-Forwarded-For`: the client is the entry that many places from the right; 0 is the connection's address, as `npm start` hands it over (ignored on Vercel, whose edge writes one entry, and refused there above 1).",
  }),
  OPTSTUFF_CDN_ADDRESS_HEADER: parsed(
    z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, "a header name: letters, digits and dashes")
      .transform((name) => name.toLowerCase())
      .optional(),
    {
      doc: "A CDN in front that names the client in a header of its own (`cf-connecting-ip`, `fastly-client-ip`, `true-client-ip`); with `OPTSTUFF_CDN_SECRET`, both or neither.",
    },
  ),
  OPTSTUFF_CDN_SECRET: parsed(z.string().min(32, "at least 32 characters").optional(), {
    doc: "What the CDN sends as `X-OptStuff-CDN-Secret` (32+ characters); requests without it are counted by the address that reached us.",
    secret: true,
  }),
  OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE: integer({
    default: 1200,
    min: 0,
    doc: "Image requests per client address and minute, cache hits and 304s included, so a visitor replaying URLs is throttled alone; 0 turns it off. Raise it where many visitors share one address with no CDN in front.",
  }),
  OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE: integer({
    default: 120,
    min: 0,
    doc: `Transforms per client address and minute, so one visitor cannot spend a key's transforms (${DEFAULT_RATE_LIMIT_PER_MINUTE.toLocaleString("en")} a minute and ${DEFAULT_RATE_LIMIT_PER_DAY.toLocaleString("en")} a day unless set in the dashboard); 0 turns it off.`,
  }),
  OPTSTUFF_AUTH_FAILURES_PER_MINUTE: integer({
    default: 60,
    min: 1,
    doc: "Failed authentications per client address and minute before that address is refused for the minute.",
  }),
});

export type RateLimitValues = ValuesOf<typeof rateLimitSettings>;

/** Who a client is: proxies in front, Vercel's edge, a CDN with its secret (env.ts: both or neither). */
export const clientAddressesOf = (v: RateLimitValues & Pick<PlatformValues, "VERCEL">): ClientAddressPolicy => ({
  trustedHops: v.OPTSTUFF_TRUSTED_PROXY_HOPS,
  vercel: v.VERCEL !== undefined,
  cdn:
    v.OPTSTUFF_CDN_ADDRESS_HEADER && v.OPTSTUFF_CDN_SECRET
      ? { addressHeader: v.OPTSTUFF_CDN_ADDRESS_HEADER, secret: v.OPTSTUFF_CDN_SECRET }
      : null,
});
