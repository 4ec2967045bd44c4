import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { TransformResult } from "@/server/image";
import type { ResultStore } from "@/server/result-store/types";

export interface ResultStoreUnderTest {
  store: ResultStore;
  /** The store's byte bound, as it was built. */
  maxBytes: number;
  /** Rewrites the stored object behind the store's back (a torn write, a flipped bit). */
  tamper(key: string, change: (stored: Buffer) => Buffer): Promise<void>;
  /** A second store over the same files or bucket: what a restarted or another instance sees. */
  reopen(): Promise<ResultStore>;
  /** The grain of the store's clock for "oldest" (S3's LastModified: one second). */
  timeGrainMs?: number;
}

export function result(body: Buffer, overrides: Partial<TransformResult> = {}): TransformResult {
  return { body, contentType: "image/webp", format: "webp", width: 640, height: 427, negotiated: true, ...overrides };
}

/** Distinct bytes per call, so equality proves which object came back. */
export function bytes(length: number): Buffer {
  const body = Buffer.alloc(length);
  const seed = randomUUID();
  for (let i = 0; i < length; i++) body[i] = seed.charCodeAt(i % seed.length) ^ (i & 0xff);
  return body;
}

/**
 * One contract for both result store backends (files under the data directory, an S3-compatible
 * bucket): what the delivery path relies on, whichever store a deployment runs.
 */
export function resultStoreContract(name: string, setup: () => Promise<ResultStoreUnderTest>): void {
  const key = (...rest: string[]) => ["p" + randomUUID().slice(0, 8), ...rest].join("/");

  describe(`result store contract: ${name}`, () => {
    it("answers exactly the bytes and metadata it was given, and null for an absent key", async () => {
      const { store } = await setup();
      const k = key("src", "v1");
      expect(await store.get(k)).toBeNull();
      const stored = result(bytes(10_000), {
        format: "avif",
        contentType: "image/avif",
        width: 1,
        height: 2,
        negotiated: false,
      });
      await store.put(k, stored);
      const back = await store.get(k);
      expect(back).toEqual(stored);
      expect(back!.body.equals(stored.body)).toBe(true);
    });

    it("replaces an object written again under the same key", async () => {
      const { store } = await setup();
      const k = key("src", "v1");
      await store.put(k, result(bytes(300)));
      const second = result(bytes(500), { width: 9 });
      await store.put(k, second);
      expect(await store.get(k)).toEqual(second);
    });

    it("never serves a damaged object: a truncated or altered one is a miss, and is gone", async () => {
      const { store, tamper } = await setup();
      const [truncated, flipped] = [key("s", "a"), key("s", "b")];
      await store.put(truncated, result(bytes(4_000)));
      await store.put(flipped, result(bytes(4_000)));
      await tamper(truncated, (stored) => stored.subarray(0, stored.length - 100));
      await tamper(flipped, (stored) => {
        const copy = Buffer.from(stored);
        copy.writeUInt8(copy.readUInt8(copy.length - 10) ^ 0xff, copy.length - 10);
        return copy;
      });
      expect(await store.get(truncated)).toBeNull();
      expect(await store.get(flipped)).toBeNull();
      // Written again, it answers again.
      const fresh = result(bytes(100));
      await store.put(truncated, fresh);
      expect(await store.get(truncated)).toEqual(fresh);
    });

    it("never loses a write to reads racing it: each read answers null or the whole object, and the object stays", async () => {
      const { store, maxBytes } = await setup();
      let failedReads = 0;
      for (let round = 0; round < 20; round++) {
        const k = key("s", `racing${round}`);
        const stored = result(bytes(Math.floor(maxBytes / 8)));
        let written = false;
        const writing = store.put(k, stored).finally(() => (written = true));
        while (!written) {
          const read = await store.get(k).catch(() => "failed" as const);
          if (read === "failed") failedReads += 1;
          else if (read !== null) expect(read.body.equals(stored.body)).toBe(true);
          // A read that answers from memory never yields to the write's I/O otherwise.
          await new Promise((resolve) => setImmediate(resolve));
        }
        await writing;
        const after = await store.get(k);
        expect(after?.body.equals(stored.body)).toBe(true);
      }
      // s3rver writes an object's bytes and its metadata as two files: a read landing between them
      // answers 500, which the caller counts as a failed read and transforms (shared-results.ts). A
      // failed read is never a wrong object; files and memory never fail at all.
      if (store.kind !== "s3") expect(failedReads).toBe(0);
    });

    it("deletes by whole-segment prefix only", async () => {
      const { store } = await setup();
      const project = key();
      const keys = [`${project}/src1/a`, `${project}/src1/b`, `${project}/src12/a`, `${project}/src2/a`];
      for (const k of keys) await store.put(k, result(bytes(64)));
      expect(await store.deletePrefix(`${project}/src1`)).toBe(2);
      expect(await Promise.all(keys.map(async (k) => (await store.get(k)) !== null))).toEqual([
        false,
        false,
        true,
        true,
      ]);
      expect(await store.deletePrefix(project)).toBe(2);
      expect(await store.get(`${project}/src12/a`)).toBeNull();
    });

    it("counts one project's share apart from the others', or says it cannot", async () => {
      const { store } = await setup();
      const [mine, theirs] = [key(), key()];
      for (const k of [`${mine}/src1/a`, `${mine}/src2/a`, `${theirs}/src1/a`]) await store.put(k, result(bytes(500)));
      const share = store.projectSize(mine);
      // A store that would have to list the bucket says so (null) rather than guess.
      if (share === null) return;
      expect(share.objects).toBe(2);
      expect(share.bytes).toBeGreaterThanOrEqual(1_000);
      expect(store.projectSize(theirs)).toEqual({ objects: 1, bytes: share.bytes / 2 });
      expect(store.projectSize(key())).toEqual({ bytes: 0, objects: 0 });
      await store.deletePrefix(`${mine}/src1`);
      expect(store.projectSize(mine)).toEqual({ objects: 1, bytes: share.bytes / 2 });
      await store.deletePrefix(mine);
      expect(store.projectSize(mine)).toEqual({ bytes: 0, objects: 0 });
      expect(store.projectSize(theirs)?.objects).toBe(1);
    });

    it("is still there for another store over the same place (a restart, another instance)", async () => {
      const { store, reopen } = await setup();
      const k = key("src", "v");
      const stored = result(bytes(2_048));
      await store.put(k, stored);
      const again = await reopen();
      try {
        expect(await again.get(k)).toEqual(stored);
      } finally {
        await again.close();
      }
    });

    it("stays within its byte bound, keeping the newest objects", async () => {
      const { store, maxBytes, timeGrainMs = 0 } = await setup();
      const project = key();
      const each = Math.floor(maxBytes / 5);
      const keys = Array.from({ length: 12 }, (_, i) => `${project}/s/${i}`);
      const tick = () => new Promise((resolve) => setTimeout(resolve, timeGrainMs));
      // The first strictly oldest and the last strictly newest, whatever the store's clock grain.
      for (const [i, k] of keys.entries()) {
        if (i === 1 || i === keys.length - 1) await tick();
        await store.put(k, result(bytes(each)));
      }
      await store.prune();
      expect(store.size().bytes).toBeLessThanOrEqual(maxBytes);
      expect(await store.get(keys.at(-1)!)).not.toBeNull();
      expect(await store.get(keys[0]!)).toBeNull();
    });

    it("refuses keys that are not plain segments", async () => {
      const { store } = await setup();
      for (const bad of ["../etc/passwd", "a//b", "/a", "a/", "a/../b", "a b"]) {
        await expect(store.put(bad, result(bytes(8)))).rejects.toThrow(/key/);
      }
    });
  });
}
