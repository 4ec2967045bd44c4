import { and, eq } from "drizzle-orm";
import { teamWebhooks } from "@/server/db/schema";
import { describeError } from "@/server/log";
import type { Database } from "@/server/db/client";
import type { Logger } from "@/server/log";
import type { SecretBox } from "@/server/signing";
import { postWebhook, type PostDeps } from "@/server/webhooks/post";
import { webhookSealContext } from "@/server/webhooks/sender";
import { signWebhook } from "@/server/webhooks/signing";
import { batchObjectKey, type AuditArchive } from "./archive";
import type { AuditBatch } from "./batch";

export interface StreamerDeps {
  db: Database;
  secretBox: SecretBox;
  post: PostDeps;
  /** Null: this instance keeps no results, so a stream to the bucket waits with an error. */
  archive: AuditArchive | null;
  now: () => Date;
  logger: Logger;
}

/**
 * Sends one batch where its stream goes: null when it went, else why not in words (kept on the stream,
 * shown to its admins; never an address the receiver's name resolved to, never a secret).
 */
export async function deliverBatch(
  deps: StreamerDeps,
  stream: { teamId: string; destination: string; webhookId: string | null; generation: number },
  batch: AuditBatch,
): Promise<string | null> {
  try {
    if (stream.destination === "bucket") {
      if (!deps.archive) return "this instance keeps no results, so it has no bucket to write to";
      await deps.archive.put(batchObjectKey(stream.teamId, batch), batch.body);
      return null;
    }
    const [hook] = await deps.db
      .select()
      .from(teamWebhooks)
      .where(and(eq(teamWebhooks.id, stream.webhookId ?? ""), eq(teamWebhooks.teamId, stream.teamId)));
    if (!hook) return "its webhook was deleted: choose another";
    if (hook.format !== "standard") return "its webhook now sends Slack's format: choose a signed JSON one";
    const secret = deps.secretBox.open(hook.sealedSecret, webhookSealContext.secret(hook.id));
    const url = new URL(deps.secretBox.open(hook.sealedUrl, webhookSealContext.url(hook.id)));
    // One id per batch: a batch sent again (a retry, a lost answer) is recognisably the same message.
    // An admin's move back is a new generation, so new ids: a receiver that drops ids it has seen
    // (as Standard Webhooks advises) takes what it was asked to take again.
    const id = `msg_audit_${stream.generation}_${batch.firstId}_${batch.lastId}`;
    const headers = signWebhook(secret, id, deps.now(), batch.body);
    const outcome = await postWebhook(
      url,
      { ...headers, "Content-Type": "application/x-ndjson" },
      batch.body,
      deps.post,
    );
    if ("error" in outcome) return outcome.error;
    return outcome.status >= 200 && outcome.status < 300 ? null : `the receiver answered ${outcome.status}`;
  } catch (error) {
    deps.logger.log("error", "an audit batch could not be sent", { team: stream.teamId, ...describeError(error) });
    return stream.destination === "bucket"
      ? "the bucket refused the write (the server's log says why)"
      : "the batch could not be prepared (the server's log says why)";
  }
}
