export * from "./auth";
export * from "./tenancy";
export * from "./api-keys";
export * from "./usage";
export * from "./cache";
export * from "./presets";
export * from "./project-images";
export * from "./source-buckets";
