import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createFileStore } from "@/server/result-store/file-store";
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
});
