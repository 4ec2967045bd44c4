import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createFileStore } from "@/server/result-store/file-store";
import { READ_IN_PLACE_BYTES } from "@/server/result-store/read-file-of-size";
import { bytes, result, resultStoreContract } from "../../contract/result-store";

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "optstuff-store-"));
  dirs.push(dir);
  return dir;
}

const fileOf = (root: string, key: string) => path.join(root, "objects", ...key.split("/"));

resultStoreContract("files", async () => {
  const root = tempDir();
  const maxBytes = 64 * 1024;
  return {
    store: createFileStore({ root, maxBytes }),
    maxBytes,
    async tamper(key, change) {
      writeFileSync(fileOf(root, key), change(readFileSync(fileOf(root, key))));
    },
    async reopen() {
      return createFileStore({ root, maxBytes });
    },
  };
});

describe("file result store", () => {
  it("evicts the least recently used, and that order survives a restart", async () => {
    const root = tempDir();
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const maxBytes = 10_000;
    const store = createFileStore({ root, maxBytes, now });
    for (const name of ["a", "b", "c"]) {
      await store.put(`p/s/${name}`, result(bytes(2_000)));
      clock += 120_000;
    }
    expect(await store.get("p/s/a")).not.toBeNull(); // a is now the most recently used
    await store.close();

    const restarted = createFileStore({ root, maxBytes, now });
    clock += 120_000;
    await restarted.put("p/s/d", result(bytes(2_000)));
    await restarted.put("p/s/e", result(bytes(2_000))); // over the bound: b, the least recently used, goes
    const present = async (name: string) => (await restarted.get(`p/s/${name}`)) !== null;
    expect(await present("b")).toBe(false);
    expect(await present("a")).toBe(true);
    expect(await present("e")).toBe(true);
    expect(restarted.size().bytes).toBeLessThanOrEqual(maxBytes);
  });

  it("evicts the team that holds the most first, so one tenant's flood evicts only its own, after a restart too", async () => {
    const root = tempDir();
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const maxBytes = 40_000;
    const store = createFileStore({ root, maxBytes, now });
    // The quiet team's results are the oldest: a plain LRU would evict them first.
    for (const name of ["q1", "q2", "q3"]) {
      await store.put(`quiet/s/${name}`, result(bytes(2_000)), "team-quiet");
      clock += 1_000;
    }
    for (let i = 0; i < 30; i++) {
      await store.put(`loud/s/v${i}`, result(bytes(2_000)), "team-loud");
      clock += 1_000;
    }
    const present = async (s: typeof store, key: string) => (await s.get(key)) !== null;
    for (const name of ["q1", "q2", "q3"]) expect(await present(store, `quiet/s/${name}`)).toBe(true);
    expect(await present(store, "loud/s/v0")).toBe(false);
    expect(await present(store, "loud/s/v29")).toBe(true);
    expect(store.size().bytes).toBeLessThanOrEqual(maxBytes);
    await store.close();

    const restarted = createFileStore({ root, maxBytes, now });
    for (let i = 30; i < 60; i++) {
      await restarted.put(`loud/s/v${i}`, result(bytes(2_000)), "team-loud");
      clock += 1_000;
    }
    for (const name of ["q1", "q2", "q3"]) expect(await present(restarted, `quiet/s/${name}`)).toBe(true);
    expect(restarted.projectSize("quiet")!.objects).toBe(3);
  });

  it("evicts from the team that holds the most when two share the store", async () => {
    const root = tempDir();
    let clock = 1_700_000_000_000;
    const store = createFileStore({ root, maxBytes: 20_000, now: () => clock });
    // Both teams hold the same; the next write evicts from the one that then holds the most.
    for (let i = 0; i < 4; i++) {
      await store.put(`a/s/${i}`, result(bytes(2_000)), "team-a");
      await store.put(`b/s/${i}`, result(bytes(2_000)), "team-b");
      clock += 1_000;
    }
    await store.put("a/s/4", result(bytes(2_000)), "team-a");
    await store.put("a/s/5", result(bytes(2_000)), "team-a");
    expect(store.projectSize("b")!.objects).toBe(4);
    expect(store.projectSize("a")!.objects).toBeLessThan(6);
  });

  it("never serves a half-written file: a crash leaves only a temporary, deleted at the next start", async () => {
    const root = tempDir();
    const store = createFileStore({ root, maxBytes: 1 << 20 });
    const whole = result(bytes(5_000));
    await store.put("p/s/v", whole);
    await store.close();
    // What a crash between write and rename leaves behind: a partial temporary, the old file intact.
    writeFileSync(path.join(root, "tmp", "crashed"), readFileSync(fileOf(root, "p/s/v")).subarray(0, 100));
    // What a store writing in place would leave: a torn file.
    writeFileSync(fileOf(root, "p/s/torn"), readFileSync(fileOf(root, "p/s/v")).subarray(0, 3_000));
    const restarted = createFileStore({ root, maxBytes: 1 << 20 });
    expect(await restarted.get("p/s/v")).toEqual(whole);
    expect(await restarted.get("p/s/torn")).toBeNull();
    expect(existsSync(fileOf(root, "p/s/torn"))).toBe(false);
    expect(readdirSync(path.join(root, "tmp"))).toEqual([]);
  });

  it("does not store a result larger than a quarter of its bound", async () => {
    const store = createFileStore({ root: tempDir(), maxBytes: 8_000 });
    await store.put("p/s/big", result(bytes(2_500)));
    expect(await store.get("p/s/big")).toBeNull();
    expect(store.size()).toEqual({ bytes: 0, objects: 0 });
  });

  it("counts what it finds at start, per project too", async () => {
    const root = tempDir();
    const store = createFileStore({ root, maxBytes: 1 << 20 });
    await store.put("p/s/a", result(bytes(1_000)));
    await store.put("p/t/b", result(bytes(1_000)));
    await store.put("q/s/c", result(bytes(1_000)));
    const size = store.size();
    const share = store.projectSize("p");
    await store.close();
    utimesSync(fileOf(root, "p/s/a"), new Date(0), new Date(0));
    const restarted = createFileStore({ root, maxBytes: 1 << 20 });
    await restarted.prune();
    expect(restarted.size()).toEqual(size);
    expect(restarted.projectSize("p")).toEqual(share);
    expect(share?.objects).toBe(2);
  });

  // Both ways a stored result is read: in place up to READ_IN_PLACE_BYTES, on libuv's pool above.
  it.each([
    [1_000, 600],
    [1_000, 1_400],
    [READ_IN_PLACE_BYTES + 50_000, READ_IN_PLACE_BYTES - 50_000],
    [READ_IN_PLACE_BYTES + 50_000, READ_IN_PLACE_BYTES + 150_000],
  ])(
    "serves a whole result of %i bytes whose file was replaced by one of %i after the index saw it, and counts its size",
    async (first, replaced) => {
      const root = tempDir();
      const maxBytes = 1 << 22;
      const store = createFileStore({ root, maxBytes });
      const original = bytes(first);
      await store.put("p/s/a", result(original));
      expect((await store.get("p/s/a"))?.body.equals(original)).toBe(true);
      // Another whole result in its place, as a write landing between a read's index lookup and its open.
      const elsewhere = tempDir();
      const body = bytes(replaced);
      await createFileStore({ root: elsewhere, maxBytes }).put("p/s/a", result(body));
      writeFileSync(fileOf(root, "p/s/a"), readFileSync(fileOf(elsewhere, "p/s/a")));
      const served = await store.get("p/s/a");
      expect(served?.body.equals(body)).toBe(true);
      expect(store.size().bytes).toBe(readFileSync(fileOf(root, "p/s/a")).length);
      // Gone behind the index's back: a miss, and forgotten.
      rmSync(fileOf(root, "p/s/a"));
      expect(await store.get("p/s/a")).toBeNull();
      expect(store.size()).toEqual({ bytes: 0, objects: 0 });
    },
  );
});
