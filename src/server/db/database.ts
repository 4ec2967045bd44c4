import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema";

export type Schema = typeof schema;
/** Both drivers produce this type: domain code never knows which one it talks to. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
