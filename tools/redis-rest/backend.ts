// What the HTTP side needs from Redis, whether one server or a cluster, plus the ioredis glue both share.
import { Command, ReplyError, type Cluster, type Pipeline, type Redis } from "ioredis";
import type { Outcome, RedisCommand } from "./protocol";

export interface RedisBackend {
  /** Runs one command. A Redis error reply resolves as `{ error }`; losing Redis itself rejects. */
  send(command: RedisCommand): Promise<Outcome>;
  /** Runs the commands as one MULTI/EXEC on one connection; one outcome per command. */
  transaction(commands: RedisCommand[]): Promise<Outcome[]>;
  close(): Promise<void>;
}

export const EXECABORT = "EXECABORT Transaction discarded because of previous errors.";

/** Redis answered with an error (a result for the client) as opposed to Redis being unreachable. */
export function isReplyError(error: unknown): error is Error {
  return error instanceof ReplyError;
}

/** Turns a reply promise into an outcome, letting transport failures through as rejections. */
export async function settle(reply: Promise<unknown>): Promise<Outcome> {
  try {
    return { result: await reply };
  } catch (error) {
    if (isReplyError(error)) return { error: error.message };
    throw error;
  }
}

/**
 * `callBuffer` keeps every bulk string as the bytes Redis sent. The upper-case name keeps ioredis's
 * reply transformers (keyed by lower-case name: `hgetall` → object, `zrange … withscores` → pairs)
 * away from the raw RESP2 reply the client expects.
 */
export function callRaw(client: Redis | Cluster, [name, ...args]: RedisCommand): Promise<unknown> {
  return client.callBuffer(name.toUpperCase(), ...args);
}

/** The same command as an object, for transactions, where each one's queueing error is needed. */
function rawCommand([name, ...args]: RedisCommand): Command {
  return new Command(name.toUpperCase(), args, { replyEncoding: null });
}

/**
 * Sends the commands inside `multi` (ioredis writes MULTI … EXEC in one go on one connection, so no
 * other request can interleave). When a command cannot be queued Redis aborts the whole transaction:
 * that command gets its own error and every other entry the EXECABORT, so no entry looks successful.
 */
export async function runTransaction(multi: Pipeline, commands: RedisCommand[]): Promise<Outcome[]> {
  const queueErrors = commands.map((command) => {
    const queued = rawCommand(command);
    multi.sendCommand(queued);
    return queued.promise.then(
      () => undefined,
      (error: unknown) => (isReplyError(error) ? error.message : undefined),
    );
  });
  try {
    const replies = (await multi.exec()) as Array<[Error | null, unknown]> | null;
    // null means a WATCHed key changed; WATCH is refused at the edge, so this is defensive only.
    if (replies === null) return commands.map(() => ({ error: EXECABORT }));
    return replies.map(([error, result]) => (error ? { error: error.message } : { result }));
  } catch (error) {
    if (!isReplyError(error)) throw error;
    const reasons = await Promise.all(queueErrors);
    return commands.map((_, index) => ({ error: reasons[index] ?? error.message }));
  }
}
