import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "@/server/db/rows-of";
import { asOneStatement } from "@/server/usage/one-statement";
import { createTestDatabase, testDatabaseKind } from "../../support/database";

/**
 * A request-log batch is one statement of writable CTEs (one-statement.ts): on the embedded database
 * and on PostgreSQL alike, every part lands or none, and committing without the WAL flush stays with
 * that statement (a pooled connection must not carry it on to the next client's transaction).
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.execute(sql`create table one_a (id int primary key, n int not null)`);
  await database.db.execute(sql`create table one_b (id int primary key, setting text not null)`);
});
afterAll(() => database?.close());

const count = async (table: string) =>
  rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from ${sql.identifier(table)}`))[0]!.n;

describe(`several writes as one statement (${testDatabaseKind()})`, () => {
  it("writes every part, upserts add, and a failing part leaves nothing of the others", async () => {
    const upsert = (id: number, n: number) =>
      sql`insert into one_a (id, n) values (${id}, ${n}) on conflict (id) do update set n = one_a.n + excluded.n`;
    const part = (query: ReturnType<typeof sql>) => ({ getSQL: () => query });
    await asOneStatement(database.db, [part(upsert(1, 2)), null, part(upsert(2, 3))], { durable: true });
    await asOneStatement(database.db, [part(upsert(1, 5))], { durable: false });
    const rows = rowsOf<{ id: number; n: number }>(await database.db.execute(sql`select id, n from one_a order by id`));
    expect(rows).toEqual([
      { id: 1, n: 7 },
      { id: 2, n: 3 },
    ]);
    // The second part breaks a NOT NULL: the first part's row is not written either.
    const broken = sql`insert into one_a (id, n) values (3, null)`;
    await expect(asOneStatement(database.db, [part(upsert(4, 1)), part(broken)], { durable: true })).rejects.toThrow();
    expect(await count("one_a")).toBe(2);
    await asOneStatement(database.db, [null], { durable: false }); // nothing to write: no statement
  });

  it("commits without the flush for its own statement only, and durably when asked", async () => {
    const seen = (id: number) => ({
      getSQL: () => sql`insert into one_b (id, setting) select ${id}, current_setting('synchronous_commit')`,
    });
    await asOneStatement(database.db, [seen(1)], { durable: false });
    await asOneStatement(database.db, [seen(2)], { durable: true });
    const settings = rowsOf<{ id: number; setting: string }>(
      await database.db.execute(sql`select id, setting from one_b order by id`),
    );
    expect(settings).toEqual([
      { id: 1, setting: "off" },
      { id: 2, setting: "on" },
    ]);
    const after = rowsOf<{ setting: string }>(
      await database.db.execute(sql`select current_setting('synchronous_commit') as setting`),
    );
    expect(after[0]!.setting).toBe("on");
  });
});
