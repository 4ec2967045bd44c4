import { AsyncLocalStorage } from "node:async_hooks";
import type { Database } from "@/server/db/client";

/**
 * better-auth creates an account inside a transaction of its adapter and runs our hooks (the
 * registration policy) inside it. On the embedded PGlite, one connection, a query made outside that
 * transaction waits for it to end, which it never does; on PostgreSQL it would not see the rows the
 * transaction wrote. So the database handed to the adapter records each transaction it opens, and the
 * hooks query through `current()`: the transaction in progress, or the database itself.
 */
export function createTransactionScope(db: Database): { db: Database; current(): Database } {
  const active = new AsyncLocalStorage<Database>();
  const recording = new Proxy(db, {
    get(target, property, receiver) {
      if (property !== "transaction") return Reflect.get(target, property, receiver);
      const transaction: Database["transaction"] = (body, config) =>
        target.transaction((tx) => active.run(tx as unknown as Database, () => body(tx)), config);
      return transaction;
    },
  });
  return { db: recording, current: () => active.getStore() ?? db };
}
