import type { NextConfig } from "next";

/**
 * A throwaway Next app for bench:image: nothing but the built-in optimizer (`/_next/image`), set up to
 * do what the signed route does in the benchmark (800 px, WebP, q80) from a loopback origin. This
 * config is for the benchmark only: loopback upstreams are an SSRF hole in a real deployment.
 */
const nextConfig: NextConfig = {
  poweredByHeader: false,
  images: {
    remotePatterns: [{ protocol: "http", hostname: "127.0.0.1" }],
    // Next 16 refuses upstreams that resolve to private or loopback addresses unless this is set.
    dangerouslyAllowLocalIP: true,
    deviceSizes: [800],
    imageSizes: [],
    qualities: [80],
    formats: ["image/webp"],
    minimumCacheTTL: 0,
  },
};

export default nextConfig;
