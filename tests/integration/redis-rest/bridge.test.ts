// The Upstash-compatible endpoint (tools/redis-rest) in front of a real redis-server and a real
// 3-master Redis Cluster, driven by the product's real @upstash/redis and @upstash/ratelimit clients.
import { createHash } from "node:crypto";
import { Redis as DirectRedis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  startRedisCluster,
  startRedisServer,
  type RedisCluster,
  type RedisProcess,
} from "../../../tools/redis-rest/redis-process";
import { createRedisRestServer, type RedisRestServer } from "../../../tools/redis-rest/server";
import { exerciseRatelimit, post, slidingWindowLimiter, TOKEN, upstashClient } from "./support";
import { need } from "../../support/services";

const redisServer = need("redis-server");

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");
const FLAGGED_INCR = '#!lua flags=allow-key-locking\nreturn redis.call("INCRBY", KEYS[1], ARGV[1])';
const NOT_AN_INTEGER = "ERR value is not an integer or out of range";
const CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";

describe.skipIf(redisServer.skip)(redisServer.title("against one redis-server"), () => {
  let server: RedisProcess;
  let endpoint: RedisRestServer;
  let direct: DirectRedis;

  beforeAll(async () => {
    server = await startRedisServer();
    endpoint = await createRedisRestServer({ redis: { host: server.host, port: server.port }, token: TOKEN });
    direct = new DirectRedis({ host: server.host, port: server.port, protocol: 2 });
  });
  afterAll(async () => {
    direct?.disconnect();
    await endpoint?.close();
    await server?.stop();
  });
  beforeEach(() => endpoint.resetStats());

  describe.each([{ autoPipelining: false }, { autoPipelining: true }])(
    "@upstash/redis with autoPipelining=$autoPipelining",
    ({ autoPipelining }) => {
      const ns = `auto${autoPipelining}`;
      const redis = () => upstashClient(endpoint, { autoPipelining });

      it("round-trips strings, base64-looking and unicode values, numbers and missing keys", async () => {
        const client = redis();
        const unicode = "héllo wörld ✓ 日本語 😀";
        await Promise.all([
          client.set(`${ns}:b64`, "abcd"),
          client.set(`${ns}:uni`, unicode),
          client.set(`${ns}:num`, 42),
        ]);
        expect(await client.get(`${ns}:b64`)).toBe("abcd");
        expect(await client.get(`${ns}:uni`)).toBe(unicode);
        expect(await client.get(`${ns}:num`)).toBe(42);
        expect(await client.incrby(`${ns}:num`, 8)).toBe(50);
        expect(await client.get(`${ns}:missing`)).toBeNull();
        expect(await direct.get(`${ns}:uni`)).toBe(unicode);
      });

      it("runs hash commands and decodes HGETALL as the client does", async () => {
        const client = redis();
        await client.hset(`${ns}:h`, { name: "abcd", count: 1 });
        expect(await client.hincrby(`${ns}:h`, "count", 5)).toBe(6);
        expect(await client.hgetall(`${ns}:h`)).toEqual({ name: "abcd", count: 6 });
        expect(await client.hgetall(`${ns}:no-hash`)).toBeNull();
      });

      it("answers SET NX EX with OK, then null while the key lives", async () => {
        const client = redis();
        expect(await client.set(`${ns}:lock`, "owner-1", { nx: true, ex: 60 })).toBe("OK");
        expect(await client.set(`${ns}:lock`, "owner-2", { nx: true, ex: 60 })).toBeNull();
        expect(await client.get(`${ns}:lock`)).toBe("owner-1");
        const ttl = await client.ttl(`${ns}:lock`);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60);
      });

      it("walks SCAN with MATCH and COUNT to every matching key", async () => {
        const client = redis();
        const wanted = Array.from({ length: 25 }, (_, i) => `${ns}:scan:${i}`);
        await Promise.all([...wanted, `${ns}:other:1`, `${ns}:other:2`].map((key) => client.set(key, "x")));
        const found: string[] = [];
        let cursor: string | number = 0;
        do {
          const [next, keys]: [string, string[]] = await client.scan(cursor, { match: `${ns}:scan:*`, count: 7 });
          found.push(...keys);
          cursor = next;
        } while (String(cursor) !== "0");
        expect([...new Set(found)].sort()).toEqual([...wanted].sort());
      });

      it("runs EVAL and EVALSHA, falling back from NOSCRIPT, with the Upstash-only flag", async () => {
        const client = redis();
        const script = client.createScript<number>(FLAGGED_INCR);
        expect(await script.exec([`${ns}:lua`], ["2"])).toBe(2);
        expect(await script.exec([`${ns}:lua`], ["3"])).toBe(5);
        expect(await client.eval("return {KEYS[1], ARGV[1]}", [`${ns}:k`], ["abcd"])).toEqual([`${ns}:k`, "abcd"]);
        await expect(client.evalsha("0".repeat(40), [], [])).rejects.toThrow(/NOSCRIPT/);
      });

      it("lets exactly 5 of 20 concurrent sliding-window calls through, and reads and resets the count", async () => {
        const outcome = await exerciseRatelimit(slidingWindowLimiter(redis(), `rl-${ns}`), "user-1");
        expect(outcome.successes).toBe(5);
        expect(outcome.remainingAfterBurst).toMatchObject({ remaining: 0, limit: 5 });
        expect(outcome.remainingAfterReset).toMatchObject({ remaining: 5, limit: 5 });
        expect(outcome.afterReset).toMatchObject({ success: true, remaining: 4 });
      });
    },
  );

  describe("protocol details", () => {
    it("counts one command as one request on POST /", async () => {
      await upstashClient(endpoint).get("stats:one");
      expect(endpoint.stats()).toMatchObject({
        requests: 1,
        commands: 1,
        byKind: { command: { requests: 1, commands: 1 } },
        byCommand: { GET: 1 },
      });
    });

    it("sends a pipeline of 3 commands as 1 request carrying 3 commands", async () => {
      const results = await upstashClient(endpoint)
        .pipeline()
        .set("pipe:a", "abcd")
        .incr("pipe:n")
        .get("pipe:a")
        .exec();
      expect(results).toEqual(["OK", 1, "abcd"]);
      expect(endpoint.stats()).toMatchObject({
        requests: 1,
        commands: 3,
        byKind: { pipeline: { requests: 1, commands: 3 } },
      });
    });

    it("batches concurrent commands into one /pipeline request with automatic pipelining", async () => {
      const client = upstashClient(endpoint, { autoPipelining: true });
      const values = await Promise.all([client.get("auto:a"), client.get("auto:b"), client.get("auto:c")]);
      expect(values).toEqual([null, null, null]);
      expect(endpoint.stats()).toMatchObject({
        requests: 1,
        commands: 3,
        byKind: { pipeline: { requests: 1, commands: 3 } },
      });
    });

    it("runs a transaction on /multi-exec", async () => {
      const results = await upstashClient(endpoint).multi().set("tx:a", "1").incr("tx:a").get("tx:a").exec();
      expect(results).toEqual(["OK", 2, 2]);
      expect(endpoint.stats()).toMatchObject({
        requests: 1,
        commands: 3,
        byKind: { multiExec: { requests: 1, commands: 3 } },
      });
    });

    it("reports an error in one pipeline entry without failing the others", async () => {
      const client = upstashClient(endpoint);
      await client.set("pipe:text", "abcd");
      const kept = await client
        .pipeline()
        .set("pipe:ok", "1")
        .incr("pipe:text")
        .get("pipe:text")
        .exec({ keepErrors: true });
      expect(kept).toEqual([
        { result: "OK", error: undefined },
        { result: undefined, error: NOT_AN_INTEGER },
        { result: "abcd", error: undefined },
      ]);
      await expect(client.pipeline().incr("pipe:text").exec()).rejects.toThrow(
        `Command 1 [ incr ] failed: ${NOT_AN_INTEGER}`,
      );
      const raw = await post(
        endpoint,
        "/pipeline",
        [
          ["GET", "pipe:text"],
          ["INCR", "pipe:text"],
        ],
        { "upstash-encoding": "base64" },
      );
      // Values are encoded, errors never are.
      expect(raw).toEqual({ status: 200, body: [{ result: "YWJjZA==" }, { error: NOT_AN_INTEGER }] });
    });

    it("keeps a runtime error to its entry in a transaction, and aborts it all on a queueing error", async () => {
      const client = upstashClient(endpoint);
      await client.set("tx:text", "abcd");
      const runtime = await post(endpoint, "/multi-exec", [
        ["SET", "tx:b", "1"],
        ["INCR", "tx:text"],
        ["INCR", "tx:b"],
      ]);
      expect(runtime).toEqual({ status: 200, body: [{ result: "OK" }, { error: NOT_AN_INTEGER }, { result: 2 }] });

      const aborted = await post(endpoint, "/multi-exec", [
        ["SET", "tx:never", "1"],
        ["NOSUCHCOMMAND"],
        ["INCR", "tx:never"],
      ]);
      expect(aborted.status).toBe(200);
      const entries = aborted.body as Array<{ error?: string; result?: unknown }>;
      expect(entries).toHaveLength(3);
      expect(entries[0]).toEqual({ error: "EXECABORT Transaction discarded because of previous errors." });
      expect(entries[1]?.error).toMatch(/^ERR unknown command 'NOSUCHCOMMAND'/);
      expect(entries[2]).toEqual(entries[0]);
      expect(await direct.exists("tx:never")).toBe(0);
      await expect(client.multi().set("tx:never", "1").exec()).resolves.toEqual(["OK"]);
    });

    it("answers a failed single command with HTTP 400 and the Redis message", async () => {
      await direct.set("single:text", "abcd");
      expect(await post(endpoint, "/", ["INCR", "single:text"])).toEqual({
        status: 400,
        body: { error: NOT_AN_INTEGER },
      });
      await expect(upstashClient(endpoint).incr("single:text")).rejects.toThrow(NOT_AN_INTEGER);
      const noscript = await post(endpoint, "/", ["EVALSHA", "f".repeat(40), 0]);
      expect(noscript).toEqual({ status: 400, body: { error: "NOSCRIPT No matching script. Please use EVAL." } });
    });

    it("base64-encodes every string at every depth, leaving integers and null raw", async () => {
      const script = 'return {1, "abcd", {2, "é"}, false}';
      const encoded = await post(endpoint, "/", ["EVAL", script, 0], { "upstash-encoding": "base64" });
      expect(encoded).toEqual({
        status: 200,
        body: { result: [1, "YWJjZA==", [2, Buffer.from("é").toString("base64")], null] },
      });
      const plain = await post(endpoint, "/", ["EVAL", script, 0]);
      expect(plain).toEqual({ status: 200, body: { result: [1, "abcd", [2, "é"], null] } });
    });

    it("refuses a missing or wrong token with 401 Unauthorized", async () => {
      const noHeader = await fetch(endpoint.url, { method: "POST", body: '["GET","k"]' });
      expect(noHeader.status).toBe(401);
      expect(await noHeader.json()).toEqual({ error: "Unauthorized" });
      await expect(upstashClient(endpoint, { token: "wrong" }).get("k")).rejects.toThrow(/Unauthorized/);
      expect(endpoint.stats()).toMatchObject({ requests: 2, unauthorized: 2, commands: 0 });
    });

    it("rejects other methods, paths and malformed bodies without reaching Redis", async () => {
      const get = await fetch(endpoint.url, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(get.status).toBe(405);
      expect((await post(endpoint, "/get/k", [])).status).toBe(404);
      expect((await post(endpoint, "/", [])).status).toBe(400);
      expect((await post(endpoint, "/pipeline", [["GET", { k: 1 }]])).status).toBe(400);
      expect(await post(endpoint, "/", ["SUBSCRIBE", "ch"])).toMatchObject({
        status: 400,
        body: { error: expect.stringMatching(/^ERR SUBSCRIBE is not supported/) },
      });
      expect(endpoint.stats()).toMatchObject({ requests: 5, rejected: 4, commands: 1 });
    });

    it("maps the client's script SHA to the rewritten script for SCRIPT LOAD, SCRIPT EXISTS and EVALSHA", async () => {
      // A stock Redis refuses the flag: this is what the rewriting is for.
      await expect(direct.eval(FLAGGED_INCR, 1, "direct")).rejects.toThrow(/Unexpected flag/);
      const client = upstashClient(endpoint);
      const sha = sha1(FLAGGED_INCR);
      expect(await client.scriptLoad(FLAGGED_INCR)).toBe(sha);
      expect(await client.scriptExists(sha)).toEqual([1]);
      expect(await client.evalsha(sha, ["script:sha"], ["7"])).toBe(7);
      // Redis itself only knows the rewritten script, under another SHA-1.
      expect(await direct.script("EXISTS", sha)).toEqual([0]);
      expect(await direct.script("EXISTS", sha1(FLAGGED_INCR.replace("#!lua flags=allow-key-locking", "")))).toEqual([
        1,
      ]);
    });

    it("keeps the script's other flags and its line numbers when removing the Upstash-only flag", async () => {
      const readOnly = await post(endpoint, "/", [
        "EVAL",
        "#!lua flags=allow-key-locking,no-writes\nreturn redis.call('SET', KEYS[1], '1')",
        1,
        "flags:k",
      ]);
      expect(readOnly).toMatchObject({ status: 400, body: { error: expect.stringMatching(/read-only scripts/) } });
      const failing = await post(endpoint, "/", [
        "EVAL",
        "#!lua flags=allow-key-locking\nlocal x = 1\nerror('boom')",
        0,
      ]);
      expect(failing).toMatchObject({ status: 400, body: { error: expect.stringMatching(/user_script:3: boom/) } });
    });

    it("costs one round trip per ratelimit call once the script is cached (two for the first)", async () => {
      const limiter = slidingWindowLimiter(upstashClient(endpoint), `rl-trips-${Date.now()}`);
      await direct.script("FLUSH");
      await limiter.limit("first");
      expect(endpoint.stats()).toMatchObject({ requests: 2, byCommand: { EVALSHA: 1, EVAL: 1 } });
      endpoint.resetStats();
      await limiter.limit("second");
      expect(endpoint.stats()).toMatchObject({ requests: 1, commands: 1, byCommand: { EVALSHA: 1 } });
    });

    it("injects latency and simulates an outage, then recovers", async () => {
      const client = upstashClient(endpoint);
      endpoint.setDelay(150);
      const started = performance.now();
      await client.get("outage:k");
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
      endpoint.setDelay(0);

      endpoint.setDown(true);
      await expect(client.get("outage:k")).rejects.toThrow();
      endpoint.setDown("hang");
      await expect(
        fetch(endpoint.url, { method: "POST", body: "[]", signal: AbortSignal.timeout(300) }),
      ).rejects.toThrow();
      endpoint.setDown(false);
      expect(await client.set("outage:k", "back")).toBe("OK");
      expect(endpoint.stats().dropped).toBe(2);
    });
  });
});

describe.skipIf(redisServer.skip)(redisServer.title("against a 3-master Redis Cluster"), () => {
  let cluster: RedisCluster;
  let endpoint: RedisRestServer;
  let nodes: DirectRedis[];

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    endpoint = await createRedisRestServer({
      redis: { cluster: cluster.nodes.map(({ host, port }) => ({ host, port })) },
      token: TOKEN,
    });
    nodes = cluster.nodes.map(({ host, port }) => new DirectRedis({ host, port, protocol: 2 }));
  });
  afterAll(async () => {
    for (const node of nodes ?? []) node.disconnect();
    await endpoint?.close();
    await cluster?.stop();
  });
  beforeEach(() => endpoint.resetStats());

  it("spreads keys over the nodes yet shows one database (pipeline, DBSIZE, SCAN)", async () => {
    const client = upstashClient(endpoint);
    const keys = Array.from({ length: 30 }, (_, i) => `spread:${i}`);
    const pipeline = client.pipeline();
    for (const key of keys) pipeline.set(key, key);
    await pipeline.exec();
    expect(endpoint.stats()).toMatchObject({ requests: 1, commands: 30 });

    const perNode = await Promise.all(nodes.map((node) => node.dbsize()));
    expect(perNode.every((count) => count > 0)).toBe(true);
    expect(perNode.reduce((a, b) => a + b, 0)).toBe(30);
    expect(await client.dbsize()).toBe(30);
    expect(await client.mget<string[]>("spread:0")).toEqual(["spread:0"]);

    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, batch]: [string, string[]] = await client.scan(cursor, { match: "spread:*", count: 5 });
      found.push(...batch);
      cursor = next;
    } while (cursor !== "0");
    expect(found.sort()).toEqual([...keys].sort());
  });

  it("runs a transaction whose keys share one hash tag", async () => {
    const results = await upstashClient(endpoint)
      .multi()
      .set("{user:1}:name", "abcd")
      .incr("{user:1}:visits")
      .get("{user:1}:name")
      .exec();
    expect(results).toEqual(["OK", 1, "abcd"]);
  });

  it("answers CROSSSLOT, as Redis would, for a transaction over several slots, and writes nothing", async () => {
    const raw = await post(endpoint, "/multi-exec", [
      ["SET", "a", "1"],
      ["SET", "b", "2"],
    ]);
    expect(raw).toEqual({ status: 200, body: [{ error: CROSSSLOT }, { error: CROSSSLOT }] });
    await expect(upstashClient(endpoint).multi().set("a", "1").set("b", "2").exec()).rejects.toThrow(CROSSSLOT);
    // EXISTS of two keys would itself be cross-slot: ask one key at a time.
    expect(await Promise.all([upstashClient(endpoint).exists("a"), upstashClient(endpoint).exists("b")])).toEqual([
      0, 0,
    ]);
    // A script over several slots gets the same answer from Redis itself: ratelimit identifiers
    // need a hash tag to run on a cluster.
    await expect(upstashClient(endpoint).eval("return 1", ["a", "b"], [])).rejects.toThrow(/CROSSSLOT/);
  });

  it("loads scripts on every master and maps their SHA", async () => {
    const client = upstashClient(endpoint);
    const sha = sha1(FLAGGED_INCR);
    expect(await client.scriptLoad(FLAGGED_INCR)).toBe(sha);
    expect(await client.scriptExists(sha)).toEqual([1]);
    expect(await Promise.all(["x", "y", "z"].map((key) => client.evalsha(sha, [`lua:${key}`], ["1"])))).toEqual([
      1, 1, 1,
    ]);
  });

  it("lets exactly 5 of 20 concurrent sliding-window calls through for a hash-tagged identifier", async () => {
    const outcome = await exerciseRatelimit(slidingWindowLimiter(upstashClient(endpoint), "rl-cluster"), "{user:42}");
    expect(outcome.successes).toBe(5);
    expect(outcome.remainingAfterBurst).toMatchObject({ remaining: 0, limit: 5 });
    expect(outcome.remainingAfterReset).toMatchObject({ remaining: 5, limit: 5 });
    expect(outcome.afterReset).toMatchObject({ success: true, remaining: 4 });
  });
});
