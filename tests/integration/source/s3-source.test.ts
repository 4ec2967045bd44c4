/**
 * Bucket sources against a real s3rver (and a few fake S3 servers for what s3rver will not do:
 * stall, trickle, lie about sizes). Workplace rule: loopback traffic only. Where the address check
 * itself is under test, the fake network of ./loopback-network records every lookup and dial and
 * routes the fake public address 93.184.216.34 to s3rver without ever dialling it.
 */
import type http from "node:http";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBucketReader, type BucketReader } from "@/server/source/s3-source";
import type { BucketSettings } from "@/server/source/types";
import type { FetchLimits, NetDeps } from "@/server/source/types";
import { makeJpeg } from "../../support/images";
import { startS3, type LocalS3 } from "../../support/s3";
import {
  createTestNetwork,
  expectAppError,
  startOrigin,
  waitFor,
  type Origin,
  type TestNetworkOptions,
} from "./loopback-network";

const PUBLIC_IP = "93.184.216.34";
const WRONG_SECRET = "wrong-secret-7f3a9c1e5b";

let s3: LocalS3;
let admin: S3Client;
let bucket: string;
let jpeg: Buffer;
/** Counts every connection: must stay at 0 whenever a read is refused. */
let trap: Origin;
const readers: BucketReader[] = [];
const origins: Origin[] = [];

beforeAll(async () => {
  s3 = await startS3();
  admin = new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
  });
  bucket = await s3.bucket();
  jpeg = await makeJpeg(320, 240);
  await put("photos/cat.jpg", jpeg, "image/jpeg");
  await put("photos/big.bin", Buffer.alloc(200_000, 7), "application/octet-stream");
  trap = await startOrigin((_req, res) => res.end("TRAP"));
}, 60_000);

afterAll(async () => {
  for (const reader of readers) reader.close();
  await Promise.all([trap?.close(), ...origins.map((o) => o.close())]);
  admin?.destroy();
  await s3?.stop();
});

async function put(key: string, body: Buffer, contentType: string): Promise<void> {
  await admin.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
}

function reader(limits: Partial<FetchLimits> = {}, net?: NetDeps): BucketReader {
  const created = createBucketReader({
    limits: { maxBytes: 1 << 20, timeoutMs: 3_000, maxRedirects: 0, allowLoopback: true, ...limits },
    net,
  });
  readers.push(created);
  return created;
}

function settings(overrides: Partial<BucketSettings> = {}): BucketSettings {
  return {
    endpoint: s3.endpoint,
    region: "us-east-1",
    bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
    prefix: "photos/",
    ...overrides,
  };
}

async function fakeS3(handler: http.RequestListener): Promise<Origin> {
  const origin = await startOrigin(handler);
  origins.push(origin);
  return origin;
}

const s3rverPort = () => Number(new URL(s3.endpoint).port);

function network(dns: NonNullable<TestNetworkOptions["dns"]>) {
  return createTestNetwork({ dns, publicRoutes: { [PUBLIC_IP]: s3rverPort() } });
}

describe("reading objects", () => {
  it("returns the object's bytes unchanged, with its type and validators", async () => {
    const fetched = await reader().read(settings(), "cat.jpg");
    expect(fetched.bytes.equals(jpeg)).toBe(true);
    expect(fetched.contentType).toBe("image/jpeg");
    expect(fetched.finalUrl).toBe(`s3://${bucket}/photos/cat.jpg`);
    expect(fetched.response?.status).toBe(200);
    expect(fetched.response?.headers.etag).toMatch(/^"[0-9a-f]+"$/);
    expect(fetched.notModified).toBeUndefined();
  });

  it("names the object by alias in finalUrl, never by endpoint or credentials", async () => {
    const fetched = await reader().read(settings({ alias: "product-shots" }), "cat.jpg");
    expect(fetched.finalUrl).toBe("s3://product-shots/photos/cat.jpg");
    expect(fetched.finalUrl).not.toContain(s3.secretAccessKey);
    expect(fetched.finalUrl).not.toContain("127.0.0.1");
  });

  it("answers a conditional read with the object's ETag as not modified, and a stale one with the bytes", async () => {
    const read = reader();
    const first = await read.read(settings(), "cat.jpg");
    const etag = first.response?.headers.etag as string;
    const again = await read.read(settings(), "cat.jpg", { conditional: { ifNoneMatch: etag } });
    expect(again.notModified).toBe(true);
    expect(again.bytes.length).toBe(0);
    expect(again.response?.status).toBe(304);
    const stale = await read.read(settings(), "cat.jpg", { conditional: { ifNoneMatch: '"0000"' } });
    expect(stale.notModified).toBeUndefined();
    expect(stale.bytes.equals(jpeg)).toBe(true);
  });

  it("reads through a public-looking endpoint with loopback closed, path-style and virtual-hosted", async () => {
    const net = network({ "s3.amazonaws.com": [PUBLIC_IP], [`${bucket}.s3.amazonaws.com`]: [PUBLIC_IP] });
    const read = reader({ allowLoopback: false }, net.net);
    const endpoint = `http://s3.amazonaws.com:${s3rverPort()}`;
    expect((await read.read(settings({ endpoint }), "cat.jpg")).bytes.equals(jpeg)).toBe(true);
    expect((await read.read(settings({ endpoint, forcePathStyle: false }), "cat.jpg")).bytes.equals(jpeg)).toBe(true);
    expect(net.lookups).toContain(`${bucket}.s3.amazonaws.com`);
    expect(net.forbiddenDials()).toEqual([]);
  });
});

describe("failures", () => {
  it("maps a missing key to SOURCE_NOT_FOUND", async () => {
    await expectAppError(reader().read(settings(), "nope.jpg"), "SOURCE_NOT_FOUND");
  });

  it("maps a missing bucket to SOURCE_FAILED saying so", async () => {
    const error = await expectAppError(
      reader().read(settings({ bucket: "no-such-bucket-here" }), "cat.jpg"),
      "SOURCE_FAILED",
    );
    expect(error.message).toContain("no such bucket");
  });

  // s3rver 3.7 does not verify SigV4 signatures (it only checks the access key id), so the refusal
  // of a wrong secret comes from a fake server that answers as AWS does, echoing what AWS echoes.
  it("maps a refused signature to SOURCE_FAILED without ever echoing the secret", async () => {
    const refusing = await fakeS3((req, res) => {
      const provided = /Signature=([0-9a-f]+)/.exec(req.headers.authorization ?? "")?.[1] ?? "";
      res.writeHead(403, { "Content-Type": "application/xml" });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided. Check your key and signing method.</Message>` +
          `<AWSAccessKeyId>${s3.accessKeyId}</AWSAccessKeyId><StringToSign>AWS4-HMAC-SHA256</StringToSign><SignatureProvided>${provided}</SignatureProvided><RequestId>R1</RequestId></Error>`,
      );
    });
    const error = await expectAppError(
      reader().read(settings({ endpoint: refusing.base, secretAccessKey: WRONG_SECRET }), "cat.jpg"),
      "SOURCE_FAILED",
    );
    expect(error.message).toContain("refused the credentials");
    expect(error.status).toBe(502);
    expect(error.publicMessage).toBe("Source request failed");
    expect(refusing.requests).toHaveLength(1);
    for (const text of [
      error.message,
      error.publicMessage,
      (error.cause as Error).message,
      String(error.cause),
      JSON.stringify(error.cause),
      JSON.stringify(refusing.requests),
    ]) {
      expect(text).not.toContain(WRONG_SECRET);
    }
  });

  it("maps an AccessDenied answer to SOURCE_FAILED with a hint", async () => {
    const denying = await fakeS3((_req, res) => {
      res.writeHead(403, { "Content-Type": "application/xml" });
      res.end("<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>");
    });
    const error = await expectAppError(reader().read(settings({ endpoint: denying.base }), "cat.jpg"), "SOURCE_FAILED");
    expect(error.message).toContain("refused access");
  });

  it("maps an unknown access key id to SOURCE_FAILED", async () => {
    const error = await expectAppError(
      reader().read(settings({ accessKeyId: "NOSUCHKEY" }), "cat.jpg"),
      "SOURCE_FAILED",
    );
    expect(error.message).toContain("refused the credentials");
  });

  it("maps an endpoint nobody listens on to SOURCE_FAILED", async () => {
    const closed = await startOrigin(() => undefined);
    await closed.close();
    await expectAppError(reader().read(settings({ endpoint: closed.base }), "cat.jpg"), "SOURCE_FAILED");
  });

  it("maps a 5xx to SOURCE_FAILED", async () => {
    const broken = await fakeS3((_req, res) => {
      res.writeHead(503, { "Content-Type": "application/xml" });
      res.end("<Error><Code>SlowDown</Code><Message>busy</Message></Error>");
    });
    await expectAppError(reader().read(settings({ endpoint: broken.base }), "cat.jpg"), "SOURCE_FAILED");
  });
});

describe("byte limit", () => {
  it("refuses an object whose declared length is over the cap", async () => {
    await expectAppError(reader({ maxBytes: 64 * 1024 }).read(settings(), "big.bin"), "SOURCE_TOO_LARGE");
  });

  it("refuses on the declared length at once, without waiting for the body", async () => {
    const stalls = await fakeS3((_req, res) => {
      res.writeHead(200, { "Content-Type": "image/jpeg", "Content-Length": 10_000_000 });
      res.write(Buffer.alloc(10));
    });
    await expectAppError(
      reader({ maxBytes: 64 * 1024, timeoutMs: 5_000 }).read(settings({ endpoint: stalls.base }), "cat.jpg"),
      "SOURCE_TOO_LARGE",
    );
    await waitFor(() => stalls.open.size === 0);
  });

  it("counts a body sent without a length and cuts it off past the cap", async () => {
    let sent = 0;
    const endless = await fakeS3((_req, res) => {
      res.writeHead(200, { "Content-Type": "image/jpeg" });
      const chunk = Buffer.alloc(16 * 1024, 1);
      const timer = setInterval(() => {
        sent += chunk.length;
        res.write(chunk);
      }, 2);
      res.on("close", () => clearInterval(timer));
    });
    await expectAppError(
      reader({ maxBytes: 64 * 1024, timeoutMs: 5_000 }).read(settings({ endpoint: endless.base }), "cat.jpg"),
      "SOURCE_TOO_LARGE",
    );
    await waitFor(() => endless.open.size === 0);
    expect(sent).toBeLessThan(4 * 1024 * 1024);
  });
});

describe("time limit", () => {
  it("gives up on an endpoint that accepts and never answers", async () => {
    const silent = await fakeS3(() => undefined);
    const started = Date.now();
    await expectAppError(
      reader({ timeoutMs: 300 }).read(settings({ endpoint: silent.base }), "cat.jpg"),
      "SOURCE_TIMEOUT",
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(silent.connections).toBe(1);
    await waitFor(() => silent.open.size === 0);
  });

  it("gives up on a body that trickles, and closes the connection", async () => {
    const trickle = await fakeS3((_req, res) => {
      res.writeHead(200, { "Content-Type": "image/jpeg", "Content-Length": 1_000 });
      const timer = setInterval(() => res.write(Buffer.alloc(1)), 50);
      res.on("close", () => clearInterval(timer));
    });
    await expectAppError(
      reader({ timeoutMs: 300 }).read(settings({ endpoint: trickle.base }), "cat.jpg"),
      "SOURCE_TIMEOUT",
    );
    await waitFor(() => trickle.open.size === 0);
  });

  it("honours the caller's deadline", async () => {
    const silent = await fakeS3(() => undefined);
    const read = reader({ timeoutMs: 10_000 }).read(settings({ endpoint: silent.base }), "cat.jpg", {
      signal: AbortSignal.timeout(200),
    });
    await expectAppError(read, "SOURCE_TIMEOUT");
  });
});

describe("network policy", () => {
  async function expectBlocked(read: Promise<unknown>): Promise<void> {
    const before = trap.connections;
    await expectAppError(read, "SOURCE_NOT_ALLOWED");
    expect(trap.connections, "connections to the loopback trap").toBe(before);
  }

  it("refuses a loopback endpoint when loopback is closed, without connecting", async () => {
    await expectBlocked(reader({ allowLoopback: false }).read(settings({ endpoint: trap.base }), "cat.jpg"));
    await expectBlocked(
      reader({ allowLoopback: false }).read(
        settings({ endpoint: `http://[::ffff:127.0.0.1]:${trap.port}` }),
        "cat.jpg",
      ),
    );
    await expectBlocked(
      reader({ allowLoopback: true }).read(settings({ endpoint: `http://localhost:${trap.port}` }), "cat.jpg"),
    );
  });

  it("refuses a host name that resolves to loopback, at the dial, without connecting", async () => {
    const net = network({ "bucket.example.com": ["127.0.0.1"] });
    await expectBlocked(
      reader({ allowLoopback: false }, net.net).read(
        settings({ endpoint: `http://bucket.example.com:${trap.port}` }),
        "cat.jpg",
      ),
    );
    expect(net.lookups).toEqual(["bucket.example.com"]);
    expect(net.dials).toEqual([]);
  });

  it.each([
    ["cloud metadata literal", "http://169.254.169.254", {}],
    ["private literal", "https://10.0.0.8:9000", {}],
    ["metadata host name", "http://metadata.google.internal", {}],
    ["name resolving to metadata", "http://meta.example.com", { "meta.example.com": ["169.254.169.254"] }],
    ["name resolving to a mixed answer", "https://mixed.example.com", { "mixed.example.com": [PUBLIC_IP, "10.0.0.5"] }],
  ])("refuses a %s endpoint without dialling", async (_label, endpoint, dns: Record<string, string[]>) => {
    const net = network(dns);
    await expectBlocked(reader({ allowLoopback: false }, net.net).read(settings({ endpoint }), "cat.jpg"));
    expect(net.dials).toEqual([]);
  });

  it("checks the virtual-hosted name the SDK derives from the bucket, not only the endpoint", async () => {
    const net = network({ "s3.amazonaws.com": [PUBLIC_IP], [`${bucket}.s3.amazonaws.com`]: ["10.0.0.5"] });
    const endpoint = `http://s3.amazonaws.com:${s3rverPort()}`;
    await expectBlocked(
      reader({ allowLoopback: false }, net.net).read(settings({ endpoint, forcePathStyle: false }), "cat.jpg"),
    );
    expect(net.dials).toEqual([]);
  });

  it.each([
    ["a non-http scheme", "ftp://s3.example.com"],
    ["userinfo", "https://user:hunter2@s3.example.com"],
    ["a query", "https://s3.example.com/?x-id=1"],
    ["a fragment", "https://s3.example.com/#frag"],
    ["no URL at all", "s3.example.com"],
  ])("refuses an endpoint with %s", async (_label, endpoint) => {
    const net = network({ "s3.example.com": [PUBLIC_IP] });
    const error = await expectAppError(
      reader({}, net.net).read(settings({ endpoint }), "cat.jpg"),
      "SOURCE_NOT_ALLOWED",
    );
    expect(error.message).not.toContain("hunter2");
    expect(net.lookups).toEqual([]);
  });
});

describe("object keys", () => {
  it.each([
    ["empty", ""],
    ["a leading slash", "/cat.jpg"],
    ["a .. segment", "../secrets/cat.jpg"],
    ["a .. segment inside", "a/../../cat.jpg"],
    ["a . segment", "a/./cat.jpg"],
    ["a NUL byte", "cat\u0000.jpg"],
    ["a newline", "cat\n.jpg"],
    ["a DEL", "cat\u007f.jpg"],
    ["a C1 control", "cat\u0085.jpg"],
    ["a lone surrogate", "cat\ud800.jpg"],
    ["over 1024 bytes", "é".repeat(513)],
  ])("refuses a key with %s before any request", async (_label, key) => {
    const before = trap.connections;
    await expectAppError(reader().read(settings({ endpoint: trap.base, prefix: "" }), key), "INVALID_SOURCE");
    expect(trap.connections).toBe(before);
  });

  it("counts the prefix in the key length", async () => {
    await expectAppError(
      reader().read(settings({ endpoint: trap.base, prefix: "p/".repeat(300) }), "x".repeat(500)),
      "INVALID_SOURCE",
    );
    expect(trap.connections).toBe(0);
  });

  it("accepts ordinary keys with spaces, unicode and dots", async () => {
    await put("photos/été 2024/v1.2..final.jpg", jpeg, "image/jpeg");
    const fetched = await reader().read(settings(), "été 2024/v1.2..final.jpg");
    expect(fetched.bytes.equals(jpeg)).toBe(true);
    expect(fetched.finalUrl).toBe(`s3://${bucket}/photos/%C3%A9t%C3%A9%202024/v1.2..final.jpg`);
  });
});
