import { sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";

/**
 * Runs `run` while a probe (`select 1`, as another tenant's lookup) asks the database every 2 ms;
 * answers how long `run` took and the probe's slowest answer, counted from when it was due (2 ms after
 * its last answer): on PGlite in process a statement also holds the thread, which a timer around the
 * probe's own query alone would not see.
 */
export async function withProbe(
  db: Database,
  run: () => Promise<unknown>,
): Promise<{ ms: number; probeMaxMs: number }> {
  let probeMaxMs = 0;
  let done = false;
  const probing = (async () => {
    while (!done) {
      const due = performance.now() + 2;
      await new Promise((resolve) => setTimeout(resolve, 2));
      await db.execute(sql`select 1`);
      probeMaxMs = Math.max(probeMaxMs, performance.now() - due);
    }
  })();
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  done = true;
  await probing;
  return { ms, probeMaxMs };
}
