/**
 * bench:image asks for a new variant with every request, more than a key's default 600 transforms a
 * minute: lift one key's limits in the database the environment names (the embedded one in
 * OPTSTUFF_DATA_DIR; the app must not be running). The limiter still runs on every request, it just
 * never refuses. The per-address windows do not apply: the load generator is on loopback, which they
 * skip (src/server/ratelimit/address-subject.ts). Usage: tsx bench/raise-key-limits.ts pk_…
 */
import { eq } from "drizzle-orm";
import { env } from "@/env";
import { openDatabase } from "@/server/db/client";
import { apiKeys } from "@/server/db/schema";
import { serverDatabaseTargetOf } from "@/server/db/target";

async function main(): Promise<void> {
  const publicKey = process.argv[2];
  if (!publicKey) throw new Error("usage: raise-key-limits pk_…");
  const database = await openDatabase(serverDatabaseTargetOf(env()));
  try {
    const rows = await database.db
      .update(apiKeys)
      .set({ rateLimitPerMinute: 100_000, rateLimitPerDay: 100_000_000 })
      .where(eq(apiKeys.publicKey, publicKey))
      .returning({ id: apiKeys.id });
    if (rows.length !== 1) throw new Error(`no key ${publicKey}`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
