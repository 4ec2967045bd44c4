import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { clusterTemplateFile } from "@/server/db/embedded/cluster-template";
import { openPglite } from "@/server/db/embedded/open-pglite";

/**
 * A new embedded database loads the dump of a new cluster instead of running initdb
 * (src/server/db/embedded/cluster-template.ts): the first one on an install writes the dump, the next
 * ones load it, a directory that exists never touches it, and a dump that does not load costs nothing
 * but the time initdb takes.
 */
const root = mkdtempSync(path.join(tmpdir(), "optstuff-cluster-template-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const template = path.join(root, "cache", "cluster.tar");
const dir = (name: string) => path.join(root, name);
let asked = 0;
const open = (name: string) =>
  openPglite(dir(name), 16, { role: "the template test" }, undefined, () => (asked++, template));

describe("a new embedded database's cluster", () => {
  it("is made by initdb the first time, and its dump kept; the next new one is that dump", async () => {
    const first = await open("first");
    const made = statSync(template);
    // A dump of a whole cluster, before any migration: no table of ours is in it.
    expect(made.size).toBeGreaterThan(1_000_000);
    expect(
      (await first.client.query("select count(*)::int as n from pg_tables where schemaname = 'public'")).rows,
    ).toEqual([{ n: 0 }]);
    // A dump with a mark of its own in place of that one: the next new database has the mark.
    await first.client.exec("create table marked (x int)");
    const dump = await first.client.dumpDataDir("none");
    await first.close();
    writeFileSync(template, Buffer.from(await dump.arrayBuffer()));

    const second = await open("second");
    expect((await second.client.query("select count(*)::int as n from marked")).rows).toEqual([{ n: 0 }]);
    await second.client.exec("insert into marked values (1)");
    await second.close();
    // Its own from then on: opened again, it is the directory's, not the dump's.
    const again = await open("second");
    expect((await again.client.query("select count(*)::int as n from marked")).rows).toEqual([{ n: 1 }]);
    await again.close();
  }, 60_000);

  it("leaves the dump alone when the directory exists: neither looked for, read nor written", async () => {
    rmSync(template, { force: true });
    asked = 0;
    const existing = await open("first");
    await existing.close();
    expect(asked).toBe(0);
    expect(statSync(template, { throwIfNoEntry: false })).toBeUndefined();
  }, 60_000);

  it("is made by initdb when the dump does not load, which is then written anew", async () => {
    writeFileSync(template, "not a tar of a cluster");
    const made = await open("third");
    expect((await made.client.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
    expect(
      (await made.client.query("select count(*)::int as n from pg_tables where tablename = 'marked'")).rows,
    ).toEqual([{ n: 0 }]);
    await made.close();
    expect(readFileSync(template).length).toBeGreaterThan(1_000_000);
  }, 60_000);

  it("is named by the installed PGlite, under node_modules/.cache; none without PGlite installed", () => {
    const wasm = statSync("node_modules/@electric-sql/pglite/dist/pglite.wasm");
    expect(clusterTemplateFile()).toBe(
      path.resolve("node_modules/.cache/optstuff", `pglite-cluster-${wasm.size}-${Math.trunc(wasm.mtimeMs)}.tar`),
    );
    expect(clusterTemplateFile(root)).toBeNull();
  });
});
