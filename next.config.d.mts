import type { NextConfig } from "next";

/** next.config.mjs's configuration, for the tests that read it. */
declare const nextConfig: NextConfig;
export default nextConfig;
