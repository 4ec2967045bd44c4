export * from "./types";
export { createDatabaseConfigStore } from "./database-store";
