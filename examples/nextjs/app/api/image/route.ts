import { createSigningRoute } from "@optstuff/client/next";
import sizes from "@/image-sizes.json";
import { imageHosts, optstuffKeys, siteUrl } from "@/lib/optstuff";

// Built on first request rather than at import, so `next build` needs no keys.
let handler: ((request: Request) => Promise<Response>) | undefined;

/** next/image's loader points here: sign on the server, answer 302 to OptStuff (cacheable). */
export function GET(request: Request): Promise<Response> {
  handler ??= createSigningRoute({
    ...optstuffKeys(),
    siteUrl: siteUrl(),
    allowedHosts: imageHosts(),
    // Only the widths next/image asks for: nobody can make this site's quota pay for other sizes.
    widths: [...sizes.deviceSizes, ...sizes.imageSizes],
  });
  return handler(request);
}
