export * from "./signature";
export * from "./key-pair";
export * from "./secret-box";
