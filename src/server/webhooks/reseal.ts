import { and, eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { teamWebhooks } from "@/server/db/schema";
import type { SecretBox } from "@/server/signing";
import { webhookSealContext } from "./sender";

/**
 * The webhooks' sealed address and secret, sealed again under the current master (a master
 * rotation's second step). Compare-and-set on the old values: a concurrent edit of the row wins.
 * Answers how many webhooks were resealed and how many were current already.
 */
export async function resealWebhooks(
  db: Database,
  secretBox: SecretBox,
): Promise<{ resealed: number; current: number }> {
  const rows = await db.select().from(teamWebhooks);
  let resealed = 0;
  for (const row of rows) {
    if (!secretBox.needsReseal(row.sealedUrl) && !secretBox.needsReseal(row.sealedSecret)) continue;
    const again = (sealed: string, context: string) => secretBox.seal(secretBox.open(sealed, context), context);
    await db
      .update(teamWebhooks)
      .set({
        sealedUrl: again(row.sealedUrl, webhookSealContext.url(row.id)),
        sealedSecret: again(row.sealedSecret, webhookSealContext.secret(row.id)),
      })
      .where(
        and(
          eq(teamWebhooks.id, row.id),
          eq(teamWebhooks.sealedUrl, row.sealedUrl),
          eq(teamWebhooks.sealedSecret, row.sealedSecret),
        ),
      );
    resealed++;
  }
  return { resealed, current: rows.length - resealed };
}
