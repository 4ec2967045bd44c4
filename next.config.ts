import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // sharp and the database drivers are native or large; load them from node_modules at run time
  // instead of bundling them into the server build.
  serverExternalPackages: ["sharp", "@electric-sql/pglite", "postgres"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
