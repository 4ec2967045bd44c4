import type { Services } from "@/server/services";
import { inProcessServices } from "./in-process";
import { productionDatabaseEnv, startPostgres } from "./postgres";

/**
 * Runs one measurement on the embedded database (PGlite in process), then on PostgreSQL 15 (the one
 * TEST_DATABASE_URL names, or a throwaway cluster), each with services of its own, closed after.
 */
export async function onBothDatabases<T>(
  root: string,
  measure: (services: Services, database: string) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  const embedded = await inProcessServices(root);
  try {
    results.push(await measure(embedded, "embedded (PGlite, in process)"));
  } finally {
    await embedded.close();
  }
  const server = await startPostgres();
  const { env, drop } = await productionDatabaseEnv(server);
  const onPostgres = await inProcessServices(root, { DATABASE_URL: env.DATABASE_URL });
  try {
    results.push(await measure(onPostgres, `PostgreSQL 15 (${server.origin})`));
  } finally {
    await onPostgres.close();
    await drop();
    await server.stop();
  }
  return results;
}
