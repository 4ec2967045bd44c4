import type { NextConfig } from "next";
// JSON, not a .ts module: `next start` loads this config with a plain require of its imports.
import sizes from "./image-sizes.json";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  images: {
    // Every <Image> asks the loader for its URL; the loader points at our signing route.
    loader: "custom",
    loaderFile: "./image-loader.ts",
    // next/image's default widths, written out because the signing route signs only these.
    deviceSizes: sizes.deviceSizes,
    imageSizes: sizes.imageSizes,
  },
};

export default nextConfig;
