import type { PGlite } from "@electric-sql/pglite";

/**
 * PGlite is one PostgreSQL session; several connections share it through this queue. pglite-socket's
 * own queue runs each protocol message in arrival order across connections, which is only safe for one
 * client at a time: postgres.js sends Parse, Bind, Execute and Sync as separate messages, and another
 * connection's Bind between them replaces the unnamed portal, so one caller would read another's rows.
 *
 * Here a connection that starts talking owns the session until the session is idle again, as the
 * protocol itself says: its output ends in ReadyForQuery with status 'I' (not inside a transaction,
 * not between an extended query's messages, not in COPY). Meanwhile other connections' messages wait
 * in order; then the oldest waiting message's connection goes next.
 */
export interface SessionQueue {
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number>;
  clearQueueForHandler(handlerId: number): void;
  clearTransactionIfNeeded(handlerId: number): Promise<void>;
  getQueueLength(): number;
}

interface Waiting {
  handlerId: number;
  message: Uint8Array;
  onData(data: Uint8Array): void;
  resolve(bytes: number): void;
  reject(error: Error): void;
}

/** 'Z', length 5, then the transaction status: what the session says when a command is done. */
const READY_FOR_QUERY = [0x5a, 0, 0, 0, 5] as const;
const IDLE = 0x49; // 'I'
/** A Sync: ends an extended query left half-sent by a connection that went away. */
const SYNC = Uint8Array.of(0x53, 0, 0, 0, 4);

export function createSessionQueue(db: PGlite): SessionQueue {
  let waiting: Waiting[] = [];
  let owner: number | null = null;
  let running = false;

  const next = (): Waiting | undefined => {
    const index = owner === null ? 0 : waiting.findIndex((w) => w.handlerId === owner);
    return index < 0 ? undefined : waiting.splice(index, 1)[0];
  };

  const run = async (item: Waiting): Promise<void> => {
    owner = item.handlerId;
    let tail: number[] = [];
    let bytes = 0;
    try {
      await db.runExclusive(() =>
        db.execProtocolRawStream(item.message, {
          onRawData: (data) => {
            bytes += data.length;
            tail = [...tail, ...data.subarray(Math.max(0, data.length - 6))].slice(-6);
            item.onData(data);
          },
        }),
      );
    } catch (error) {
      item.reject(error instanceof Error ? error : new Error(String(error)));
      return;
    } finally {
      if (idleAfter(tail)) owner = null;
    }
    item.resolve(bytes);
  };

  const drain = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      for (let item = next(); item; item = next()) await run(item);
    } finally {
      running = false;
    }
  };

  return {
    enqueue: (handlerId, message, onData) =>
      new Promise((resolve, reject) => {
        waiting.push({ handlerId, message, onData, resolve, reject });
        void drain();
      }),
    clearQueueForHandler(handlerId) {
      waiting = waiting.filter((w) => {
        if (w.handlerId !== handlerId) return true;
        w.reject(new Error("connection closed"));
        return false;
      });
    },
    async clearTransactionIfNeeded(handlerId) {
      if (owner !== handlerId) return;
      // Closing: the connections go with the session.
      if (db.closed) return;
      // A connection that left mid-query or mid-transaction must not leave the session to the next one
      // in that state: end the extended query, roll back what it began.
      await db.runExclusive(() => db.execProtocolRawStream(SYNC, { onRawData: () => {} })).catch(() => {});
      if (!db.closed && db.isInTransaction()) await db.exec("rollback").catch(() => {});
      owner = null;
      void drain();
    },
    getQueueLength: () => waiting.length,
  };
}

function idleAfter(tail: number[]): boolean {
  if (tail.length < 6) return false;
  return READY_FOR_QUERY.every((byte, i) => tail[i] === byte) && tail[5] === IDLE;
}
