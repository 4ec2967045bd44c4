import { randomUUID } from "node:crypto";
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createObjectNames } from "@/server/result-store/object-names";
import { createS3Store } from "@/server/result-store/s3-store";
import type { ResultStore } from "@/server/result-store/types";
import { bytes, result, resultStoreContract } from "../../contract/result-store";
import { startS3, type LocalS3 } from "../../support/s3";

let s3: LocalS3;
let client: S3Client;
const stores: ResultStore[] = [];
/** What the stores below call each key in the bucket (the same master secret for all). */
const names = createObjectNames("test-master");
/** The bucket's key of a result key. */
const objectKey = (key: string) => `results/${names.nameOf(key)}`;

beforeAll(async () => {
  s3 = await startS3();
  client = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
  });
}, 30_000);

afterAll(async () => {
  for (const store of stores) await store.close();
  client?.destroy();
  await s3?.stop();
});

function storeOn(
  bucket: string,
  maxBytes: number,
  options: {
    teamsOf?: (projectIds: readonly string[]) => Promise<ReadonlyMap<string, string>>;
    pageSize?: number;
  } = {},
): ResultStore {
  const store = createS3Store({
    ...s3.settings(bucket),
    maxBytes,
    names,
    timeoutMs: 2_000,
    ...options,
  });
  stores.push(store);
  return store;
}

resultStoreContract("s3 (s3rver)", async () => {
  const bucket = await s3.bucket();
  const maxBytes = 64 * 1024;
  return {
    store: storeOn(bucket, maxBytes),
    maxBytes,
    async tamper(key, change) {
      const Key = objectKey(key);
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
      const body = Buffer.from(await object.Body!.transformToByteArray());
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key,
          Body: change(body),
          ContentType: object.ContentType,
          Metadata: object.Metadata,
        }),
      );
    },
    reopen: async () => storeOn(bucket, maxBytes),
    timeGrainMs: 1_100,
  };
});

describe("S3 result store", () => {
  it("leaves a damaged object written moments ago (a write may be landing) and deletes one older than any write", async () => {
    const bucket = await s3.bucket();
    const store = storeOn(bucket, 1 << 20);
    await store.put("p/s/v", result(bytes(3_000)));
    // Damaged behind the store's back: the length says 3,000, the body is shorter.
    const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey("p/s/v") }));
    await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: objectKey("p/s/v"),
        Body: Buffer.from(await object.Body!.transformToByteArray()).subarray(0, 100),
        ContentType: object.ContentType,
        Metadata: object.Metadata,
      }),
    );
    const exists = () =>
      client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey("p/s/v") })).then(
        () => true,
        () => false,
      );
    expect(await store.get("p/s/v")).toBeNull();
    expect(await exists()).toBe(true);
    // Older than the store's 2 s write budget (LastModified has whole seconds).
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    expect(await store.get("p/s/v")).toBeNull();
    expect(await exists()).toBe(false);
  });

  it("keeps what answers a request visible on the object: type, length and checksum", async () => {
    const bucket = await s3.bucket();
    const stored = result(bytes(3_000), { contentType: "image/avif", format: "avif" });
    await storeOn(bucket, 1 << 20).put("p/s/v", stored);
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey("p/s/v") }));
    expect(head.ContentType).toBe("image/avif");
    expect(head.ContentLength).toBe(3_000);
    expect(head.Metadata).toMatchObject({
      format: "avif",
      width: "640",
      height: "427",
      negotiated: "true",
      length: "3000",
    });
    expect(head.Metadata?.sha256).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("names every object by keyed segments: no project id, source or variant of the key in the bucket's name", async () => {
    const bucket = await s3.bucket();
    const store = storeOn(bucket, 1 << 20);
    const project = randomUUID();
    // Names long enough that a keyed digest cannot hold one by chance (one of two letters did: "v2").
    const [src1, src2, v1, v2] = ["source-one", "source-two", "variant-one", "variant-two"];
    const keys = [
      `${project}/${src1}/${v1}`,
      `${project}/${src1}/${v2}`,
      `${project}/${src2}/${v1}`,
      `${randomUUID()}/${src1}/${v1}`,
    ];
    for (const key of keys) await store.put(key, result(bytes(100)));
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    const stored = (listed.Contents ?? []).map((o) => o.Key!).sort();
    expect(stored).toEqual(keys.map(objectKey).sort());
    for (const key of stored) {
      for (const clear of [project, project.slice(0, 8), src1, src2, v1, v2]) expect(key).not.toContain(clear);
      expect(key).toMatch(/^results\/[A-Za-z0-9_-]{22,}\/[A-Za-z0-9_-]{22}\/[A-Za-z0-9_-]{22}$/);
    }
    // One project, one prefix; one source of it, one prefix under that: a purge still deletes by prefix.
    const [a, b, c, other] = keys.map((key) => names.nameOf(key).split("/"));
    expect([a![0], a![1]]).toEqual([b![0], b![1]]);
    expect(c![0]).toBe(a![0]);
    expect(c![1]).not.toBe(a![1]);
    expect(other![0]).not.toBe(a![0]);
    // The same variant name under another source or project is another segment: nothing is shared.
    expect(new Set([a![2], c![2], other![2]]).size).toBe(3);
    expect(await store.deletePrefix(`${project}/${src1}`)).toBe(2);
    expect(await store.get(keys[2]!)).not.toBeNull();
    expect(await store.deletePrefix(project)).toBe(1);
    expect(await store.get(keys[3]!)).not.toBeNull();
  });

  it("reads each object's project back from its name, so pruning still evicts from the team that holds the most", async () => {
    const bucket = await s3.bucket();
    const [heavy, light] = [randomUUID(), randomUUID()];
    const asked: string[][] = [];
    const teamsOf = async (ids: readonly string[]) => {
      asked.push([...ids].sort());
      return new Map(ids.map((id) => [id, id === heavy ? "team-heavy" : "team-light"]));
    };
    const store = storeOn(bucket, 10_000, { teamsOf });
    // The light team's objects are the oldest: oldest-first alone would take them.
    for (let i = 0; i < 2; i++) await store.put(`${light}/s/${i}`, result(bytes(2_000)));
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // LastModified has a one-second grain
    for (let i = 0; i < 4; i++) await store.put(`${heavy}/s/${i}`, result(bytes(2_000)));
    const pruned = await store.prune();
    expect(asked).toEqual([[heavy, light].sort()]);
    expect(pruned.deleted).toBe(2);
    for (let i = 0; i < 2; i++) expect(await store.get(`${light}/s/${i}`)).not.toBeNull();
    expect((await Promise.all([0, 1, 2, 3].map((i) => store.get(`${heavy}/s/${i}`)))).filter(Boolean)).toHaveLength(2);
  }, 30_000);

  it("prunes and deletes a prefix page by page: listings of two objects, the same choice as one listing", async () => {
    const bucket = await s3.bucket();
    const [h1, h2, light] = [randomUUID(), randomUUID(), randomUUID()];
    const teamsOf = async (ids: readonly string[]) =>
      new Map(ids.map((id) => [id, id === light ? "team-light" : "team-heavy"]));
    const store = storeOn(bucket, 10_000, { teamsOf, pageSize: 2 });
    for (let i = 0; i < 2; i++) await store.put(`${light}/s/${i}`, result(bytes(2_000)));
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // LastModified has a one-second grain
    for (let i = 0; i < 2; i++) await store.put(`${h1}/s/${i}`, result(bytes(2_000)));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    for (let i = 0; i < 2; i++) await store.put(`${h2}/s/${i}`, result(bytes(2_000)));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    for (let i = 2; i < 4; i++) await store.put(`${h2}/s/${i}`, result(bytes(2_000)));
    // 16,000 bytes down to 9,000: the heavy team (12,000) gives four of its oldest, the light one none.
    expect(await store.prune()).toEqual({ deleted: 4, bytes: 8_000 });
    expect(store.size()).toEqual({ bytes: 8_000, objects: 4 });
    const left = async (keys: string[]) => (await Promise.all(keys.map((key) => store.get(key)))).map(Boolean);
    expect(await left([`${light}/s/0`, `${light}/s/1`])).toEqual([true, true]);
    expect(await left([0, 1].map((i) => `${h1}/s/${i}`))).toEqual([false, false]);
    expect(await left([0, 1, 2, 3].map((i) => `${h2}/s/${i}`))).toEqual([false, false, true, true]);
    expect(await store.deletePrefix(light)).toBe(2);
    expect(await store.deletePrefix(h2)).toBe(2);
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.Contents ?? []).toEqual([]);
  }, 30_000);

  it("deletes at the next pruning the objects whose names it cannot read back: written in clear before, or under another secret", async () => {
    const bucket = await s3.bucket();
    const store = storeOn(bucket, 1 << 20);
    const project = randomUUID();
    // As the store named objects before its names were keyed, and as another master secret names them.
    const legacy = `results/${project}/s/v`;
    const foreign = `results/${createObjectNames("another-master").nameOf(`${project}/s/v`)}`;
    for (const Key of [legacy, foreign])
      await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: bytes(1_000), ContentType: "image/webp" }));
    await store.put(`${project}/s/v`, result(bytes(1_000)));
    expect(await store.prune()).toEqual({ deleted: 2, bytes: 2_000 });
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect((listed.Contents ?? []).map((o) => o.Key)).toEqual([objectKey(`${project}/s/v`)]);
    expect(store.size()).toEqual({ bytes: 1_000, objects: 1 });
    expect(await store.get(`${project}/s/v`)).not.toBeNull();
  });

  it("evicts across instances: one instance's prune counts and removes what another wrote, oldest first", async () => {
    const bucket = await s3.bucket();
    const [a, b] = [storeOn(bucket, 10_000), storeOn(bucket, 10_000)];
    for (let i = 0; i < 4; i++) {
      await a.put(`p/s/${i}`, result(bytes(2_000)));
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // LastModified has a one-second grain
    }
    await a.put("p/s/4", result(bytes(2_000)));
    await b.put("p/s/5", result(bytes(2_000)));
    const pruned = await b.prune();
    expect(pruned.deleted).toBe(2);
    expect(b.size()).toEqual({ bytes: 8_000, objects: 4 });
    expect(await b.get("p/s/0")).toBeNull();
    expect(await b.get("p/s/1")).toBeNull();
    expect(await a.get("p/s/5")).not.toBeNull();
  }, 30_000);

  it("fails fast while the server is down and works again, without being rebuilt, once it is back", async () => {
    const own = await startS3({ own: true });
    try {
      const bucket = await own.bucket();
      const store = createS3Store({
        bucket,
        prefix: "results/",
        endpoint: own.endpoint,
        region: "us-east-1",
        accessKeyId: own.accessKeyId,
        secretAccessKey: own.secretAccessKey,
        forcePathStyle: true,
        maxBytes: 1 << 20,
        names,
        timeoutMs: 1_000,
      });
      stores.push(store);
      const stored = result(bytes(1_000));
      await store.put("p/s/v", stored);
      await own.process!.kill();
      await expect(store.get("p/s/v")).rejects.toThrow();
      await expect(store.put("p/s/w", stored)).rejects.toThrow();
      await own.process!.start();
      expect(await store.get("p/s/v")).toEqual(stored);
      await store.put("p/s/w", stored);
      expect(await store.get("p/s/w")).toEqual(stored);
    } finally {
      await own.stop();
    }
  }, 30_000);
});
