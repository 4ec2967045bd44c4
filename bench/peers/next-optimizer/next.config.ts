import type { NextConfig } from "next";

/**
 * A throwaway Next app for bench:image: nothing but the built-in optimizer (`/_next/image`), set up to
 * do what the signed route does in the benchmark (800 px, WebP, q80) from a loopback origin. This
 * config is for the benchmark only: loopback upstreams are an SSRF hole in a real deployment.
 */
const remote = {
  remotePatterns: [{ protocol: "http" as const, hostname: "127.0.0.1" }],
  // Next 16 refuses upstreams that resolve to private or loopback addresses unless this is set.
  dangerouslyAllowLocalIP: true,
};

/**
 * `next start` reads this file again, so one build serves both: bench:image's fixed 800 px WebP, and
 * with BENCH_NEXT_IMAGES=srcset bench:srcset's defaults as a next/image site has them (every default
 * width, AVIF and WebP, q75, the disk cache on), and with BENCH_NEXT_IMAGES=quality bench:quality's.
 */
const nextConfig: NextConfig = {
  poweredByHeader: false,
  images:
    process.env.BENCH_NEXT_IMAGES === "srcset"
      ? { ...remote, formats: ["image/avif", "image/webp"] }
      : process.env.BENCH_NEXT_IMAGES === "quality"
        ? // bench:quality: AVIF and WebP at Next's default quality (75), at the corpus's 800 px.
          { ...remote, deviceSizes: [800], imageSizes: [], formats: ["image/avif", "image/webp"] }
        : {
            ...remote,
            deviceSizes: [800],
            imageSizes: [],
            qualities: [80],
            formats: ["image/webp"],
            minimumCacheTTL: 0,
          },
};

export default nextConfig;
