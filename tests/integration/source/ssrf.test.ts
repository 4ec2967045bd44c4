/**
 * Server-side request forgery suite: every attack form must be refused, and each test proves no
 * connection reached the forbidden place. Two trap origins (127.0.0.1 and ::1) count every TCP
 * connection and must end at exactly 0; the fake network refuses to dial anything that is not
 * loopback and records every dial. "Public" origins are loopback servers the fake network reaches
 * under the fake address 93.184.216.34, which is never actually dialled.
 */
import type http from "node:http";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "@/server/errors";
import { assertSourceAllowed } from "@/server/source/allowlist";
import { parseSource } from "@/server/source/parse-source";
import { resolveRedirect } from "@/server/source/redirect-policy";
import { createSourceFetcher } from "@/server/source/safe-fetch";
import {
  createTestNetwork,
  expectAppError,
  startOrigin,
  type Origin,
  type TestNetwork,
  type TestNetworkOptions,
} from "./loopback-network";

const PUBLIC_IP = "93.184.216.34";
const PUBLIC_BYTES = Buffer.from("PUBLIC-IMAGE-BYTES");

let trap4: Origin;
let trap6: Origin;
let publicOrigin: Origin;

interface Ports {
  t4: number;
  t6: number;
}
const ports = (): Ports => ({ t4: trap4.port, t6: trap6.port });

const dnsTable: NonNullable<TestNetworkOptions["dns"]> = {
  "public.test": [PUBLIC_IP],
  "loopback.test": ["127.0.0.1"],
  "private.test": ["10.1.2.3"],
  "meta.test": ["169.254.169.254"],
  "cgnat.test": ["100.100.100.100"],
  "v6loop.test": ["::1"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "nat64.test": ["64:ff9b::a9fe:a9fe"],
  "ula.test": ["fd00::1"],
  "zero.test": ["0.0.0.0"],
  "garbage.test": ["not-an-ip"],
  "mixed.test": [PUBLIC_IP, "10.0.0.5"],
  "mixed-loopback.test": ["127.0.0.1", PUBLIC_IP],
};

function publicHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://public.test");
  if (url.pathname === "/image") {
    res.writeHead(200, { "Content-Type": "image/png", "Content-Length": PUBLIC_BYTES.length });
    res.end(PUBLIC_BYTES);
  } else if (url.pathname === "/redirect") {
    res.writeHead(302, { Location: url.searchParams.get("to") ?? "/" });
    res.end();
  } else if (url.pathname === "/loop") {
    res.writeHead(301, { Location: "/loop" });
    res.end();
  } else {
    res.writeHead(404);
    res.end();
  }
}

beforeAll(async () => {
  const secret = (_req: http.IncomingMessage, res: http.ServerResponse) => res.end("INTERNAL SECRET");
  trap4 = await startOrigin(secret, "127.0.0.1");
  trap6 = await startOrigin(secret, "::1");
  publicOrigin = await startOrigin(publicHandler);
});

afterEach(() => {
  // The core proof, after every single test: nothing ever reached a forbidden origin.
  expect(trap4.connections, "connections to the 127.0.0.1 trap").toBe(0);
  expect(trap6.connections, "connections to the ::1 trap").toBe(0);
});

afterAll(async () => {
  await Promise.all([trap4?.close(), trap6?.close(), publicOrigin?.close()]);
});

function makeNetwork(overrides: TestNetworkOptions["dns"] = {}): TestNetwork {
  return createTestNetwork({ dns: { ...dnsTable, ...overrides }, publicRoutes: { [PUBLIC_IP]: publicOrigin.port } });
}

function makeFetcher(network: TestNetwork) {
  return createSourceFetcher({
    limits: { maxBytes: 1 << 20, timeoutMs: 3000, maxRedirects: 3, allowLoopback: false },
    localRoot: null,
    net: network.net,
  });
}

/** What the image route does with a source under a `*` allowlist: parse, allowlist, fetch. */
async function run(raw: string, network: TestNetwork) {
  const location = parseSource(raw);
  assertSourceAllowed(location, ["*"]);
  return makeFetcher(network).fetch(location);
}

async function expectRefused(raw: string, code: ErrorCode, network = makeNetwork()): Promise<TestNetwork> {
  await expectAppError(run(raw, network), code);
  expect(network.forbiddenDials(), `${raw} dialled a forbidden address`).toEqual([]);
  return network;
}

type Case = [label: string, raw: (p: Ports) => string];

describe("literal IP addresses in forbidden ranges", () => {
  const cases: Case[] = [
    ["loopback 127.0.0.1 (trap)", (p) => `http://127.0.0.1:${p.t4}/x.png`],
    ["loopback without scheme", (p) => `127.0.0.1:${p.t4}/x.png`],
    ["loopback 127.255.255.254", () => "127.255.255.254/x.png"],
    ["this-network 0.0.0.0", (p) => `http://0.0.0.0:${p.t4}/x.png`],
    ["private 10/8", () => "10.0.0.1/x.png"],
    ["private 172.16/12 low edge", () => "172.16.0.1/x.png"],
    ["private 172.16/12 high edge", () => "172.31.255.254/x.png"],
    ["private 192.168/16", () => "192.168.1.1/x.png"],
    ["CGNAT 100.64/10", () => "100.64.0.1/x.png"],
    ["link-local 169.254/16", () => "169.254.1.1/x.png"],
    ["cloud metadata 169.254.169.254", () => "http://169.254.169.254/latest/meta-data/"],
    ["IETF 192.0.0/24", () => "192.0.0.8/x.png"],
    ["TEST-NET-1", () => "192.0.2.1/x.png"],
    ["6to4 relay 192.88.99/24", () => "192.88.99.1/x.png"],
    ["benchmarking 198.18/15", () => "198.19.0.1/x.png"],
    ["TEST-NET-2", () => "198.51.100.7/x.png"],
    ["TEST-NET-3", () => "203.0.113.9/x.png"],
    ["multicast 224/4", () => "224.0.0.1/x.png"],
    ["reserved 240/4", () => "240.0.0.1/x.png"],
    ["broadcast", () => "255.255.255.255/x.png"],
  ];
  it.each(cases)("refuses %s without a lookup or a dial", async (_label, raw) => {
    const network = await expectRefused(raw(ports()), "SOURCE_NOT_ALLOWED");
    expect(network.lookups).toEqual([]);
    expect(network.dials).toEqual([]);
  });
});

describe("odd IPv4 spellings (canonicalised before the policy check)", () => {
  const cases: Case[] = [
    ["decimal 127.0.0.1", (p) => `http://2130706433:${p.t4}/x.png`],
    ["octal 127.0.0.1", (p) => `http://017700000001:${p.t4}/x.png`],
    ["hex 127.0.0.1", (p) => `http://0x7f000001:${p.t4}/x.png`],
    ["hex-short 127.0.0.1", (p) => `http://0x7f.1:${p.t4}/x.png`],
    ["short 127.1", (p) => `http://127.1:${p.t4}/x.png`],
    ["octal-dotted 0177.0.0.1", (p) => `http://0177.0.0.1:${p.t4}/x.png`],
    ["trailing dot 127.0.0.1.", (p) => `http://127.0.0.1.:${p.t4}/x.png`],
    ["bare 0 (0.0.0.0)", (p) => `http://0:${p.t4}/x.png`],
    ["decimal 10.0.0.1", () => "167772161/x.png"],
    ["octal 10.0.0.1", () => "012.0.0.1/x.png"],
    ["hex 10.0.0.1", () => "0xa.0.0.1/x.png"],
    ["hex 192.168.0.1", () => "0xc0a80001/x.png"],
    ["decimal metadata", () => "2852039166/latest/meta-data/"],
    ["hex-dotted metadata", () => "0xa9.0xfe.0xa9.0xfe/latest/meta-data/"],
  ];
  it.each(cases)("refuses %s", async (_label, raw) => {
    const network = await expectRefused(raw(ports()), "SOURCE_NOT_ALLOWED");
    expect(network.dials).toEqual([]);
  });
});

describe("IPv6 forms", () => {
  const cases: Case[] = [
    ["loopback [::1] (trap)", (p) => `http://[::1]:${p.t6}/x.png`],
    ["mapped [::ffff:127.0.0.1]", (p) => `http://[::ffff:127.0.0.1]:${p.t4}/x.png`],
    ["mapped hex [::ffff:7f00:1]", (p) => `http://[::ffff:7f00:1]:${p.t4}/x.png`],
    ["mapped long [0:0:0:0:0:ffff:a00:1]", () => "[0:0:0:0:0:ffff:a00:1]/x.png"],
    ["mapped metadata", () => "[::ffff:169.254.169.254]/latest/meta-data/"],
    ["IPv4-compatible [::127.0.0.1]", (p) => `http://[::127.0.0.1]:${p.t4}/x.png`],
    ["unspecified [::]", (p) => `http://[::]:${p.t6}/x.png`],
    ["link-local [fe80::1]", () => "[fe80::1]/x.png"],
    ["ULA [fc00::1]", () => "[fc00::1]/x.png"],
    ["AWS IPv6 metadata [fd00:ec2::254]", () => "[fd00:ec2::254]/latest/meta-data/"],
    ["NAT64 [64:ff9b::7f00:1]", () => "[64:ff9b::7f00:1]/x.png"],
    ["6to4 [2002:7f00:1::]", () => "[2002:7f00:1::]/x.png"],
    ["Teredo [2001::1]", () => "[2001::1]/x.png"],
    ["documentation [2001:db8::1]", () => "[2001:db8::1]/x.png"],
    ["multicast [ff02::1]", () => "[ff02::1]/x.png"],
    ["site-local [fec0::1]", () => "[fec0::1]/x.png"],
  ];
  it.each(cases)("refuses %s", async (_label, raw) => {
    const network = await expectRefused(raw(ports()), "SOURCE_NOT_ALLOWED");
    expect(network.dials).toEqual([]);
  });
});

describe("forbidden host names (refused before any lookup)", () => {
  const cases: Case[] = [
    ["localhost (trap port)", (p) => `http://localhost:${p.t4}/x.png`],
    ["LOCALHOST. with trailing dot", (p) => `http://LOCALHOST.:${p.t4}/x.png`],
    ["foo.localhost", (p) => `http://foo.localhost:${p.t4}/x.png`],
    ["metadata.google.internal", () => "metadata.google.internal/computeMetadata/v1/"],
    ["metadata", () => "metadata/computeMetadata/v1/"],
    ["instance-data", () => "instance-data/latest/meta-data/"],
    ["*.internal", () => "db.corp.internal/x.png"],
    ["*.local", () => "printer.local/x.png"],
    ["*.localdomain", () => "nas.localdomain/x.png"],
    ["single-label intranet", () => "intranet/x.png"],
  ];
  it.each(cases)("refuses %s", async (_label, raw) => {
    const network = await expectRefused(raw(ports()), "SOURCE_NOT_ALLOWED");
    expect(network.lookups).toEqual([]);
    expect(network.dials).toEqual([]);
  });
});

describe("names that resolve to forbidden addresses", () => {
  const cases: Case[] = [
    ["loopback", (p) => `http://loopback.test:${p.t4}/x.png`],
    ["private", () => "private.test/x.png"],
    ["metadata", () => "http://meta.test/latest/meta-data/"],
    ["CGNAT", () => "cgnat.test/x.png"],
    ["::1", (p) => `http://v6loop.test:${p.t6}/x.png`],
    ["IPv4-mapped loopback", (p) => `http://mapped.test:${p.t4}/x.png`],
    ["NAT64 metadata", () => "nat64.test/x.png"],
    ["ULA", () => "ula.test/x.png"],
    ["0.0.0.0", (p) => `http://zero.test:${p.t4}/x.png`],
    ["a non-address answer", () => "garbage.test/x.png"],
    ["a public AND a private address", () => "http://mixed.test/image"],
    ["loopback first, then public", (p) => `http://mixed-loopback.test:${p.t4}/image`],
  ];
  it.each(cases)("refuses a name resolving to %s, after exactly one lookup and no dial", async (_label, raw) => {
    const network = await expectRefused(raw(ports()), "SOURCE_NOT_ALLOWED");
    expect(network.lookups).toHaveLength(1);
    // Not even the public answer of a mixed reply is dialled: one bad answer condemns the name.
    expect(network.dials).toEqual([]);
  });
});

describe("schemes and credentials", () => {
  const cases: Case[] = [
    ["ftp", () => "ftp://127.0.0.1/x.png"],
    ["file", () => "file:///etc/passwd"],
    ["gopher to the trap", (p) => `gopher://127.0.0.1:${p.t4}/_GET%20/`],
    ["dict to the trap", (p) => `dict://127.0.0.1:${p.t4}/info`],
    ["data", () => "data:image/png;base64,iVBORw0KGgo="],
    ["javascript", () => "javascript:alert(1)"],
    ["userinfo pointing at the trap", (p) => `http://public.test@127.0.0.1:${p.t4}/x.png`],
    ["userinfo with a password", () => "https://user:pass@public.test/image"],
  ];
  it.each(cases)("refuses %s as an invalid source", async (_label, raw) => {
    const network = await expectRefused(raw(ports()), "INVALID_SOURCE");
    expect(network.dials).toEqual([]);
  });

  it("refuses a non-http URL handed to the fetcher directly (defence in depth)", async () => {
    const network = makeNetwork();
    const location = { kind: "remote" as const, url: new URL(`ftp://127.0.0.1:${trap4.port}/x.png`) };
    await expectAppError(makeFetcher(network).fetch(location), "SOURCE_NOT_ALLOWED");
    expect(network.dials).toEqual([]);
  });
});

describe("redirects from an allowed public origin", () => {
  it("positive control: the public origin is reachable and redirects inside it are followed", async () => {
    const network = makeNetwork();
    const direct = await run("http://public.test/image", network);
    expect(direct.bytes.equals(PUBLIC_BYTES)).toBe(true);
    const viaRelative = await run(`http://public.test/redirect?to=${encodeURIComponent("/image")}`, network);
    expect(viaRelative.bytes.equals(PUBLIC_BYTES)).toBe(true);
    expect(viaRelative.finalUrl).toBe("http://public.test/image");
    expect(network.dials.every((d) => d.address === PUBLIC_IP)).toBe(true);
  });

  const cases: Case[] = [
    ["http://127.0.0.1:<trap>", (p) => `http://127.0.0.1:${p.t4}/x.png`],
    ["http://[::1]:<trap6>", (p) => `http://[::1]:${p.t6}/x.png`],
    ["decimal 2130706433:<trap>", (p) => `http://2130706433:${p.t4}/x.png`],
    ["protocol-relative //127.0.0.1:<trap>", (p) => `//127.0.0.1:${p.t4}/x.png`],
    ["10.0.0.1", () => "http://10.0.0.1/x.png"],
    ["the metadata address", () => "http://169.254.169.254/latest/meta-data/iam/"],
    ["mapped loopback", (p) => `http://[::ffff:127.0.0.1]:${p.t4}/x.png`],
    ["localhost:<trap>", (p) => `http://localhost:${p.t4}/x.png`],
    ["metadata.google.internal", () => "http://metadata.google.internal/computeMetadata/v1/"],
    ["a name resolving to loopback", (p) => `http://loopback.test:${p.t4}/x.png`],
    ["a name resolving to metadata", () => "http://meta.test/latest/meta-data/"],
    ["file:///etc/passwd", () => "file:///etc/passwd"],
    ["gopher to the trap", (p) => `gopher://127.0.0.1:${p.t4}/_x`],
    ["credentials in the Location", () => "http://user:pw@public.test/image"],
  ];
  it.each(cases)("refuses a redirect to %s", async (_label, target) => {
    const requestsBefore = publicOrigin.requests.length;
    const raw = `http://public.test/redirect?to=${encodeURIComponent(target(ports()))}`;
    const network = await expectRefused(raw, "SOURCE_REDIRECT_FORBIDDEN");
    expect(network.dials).toEqual([{ address: PUBLIC_IP, port: 80 }]);
    expect(publicOrigin.requests.length - requestsBefore).toBe(1);
  });

  it("stops after maxRedirects hops", async () => {
    const requestsBefore = publicOrigin.requests.length;
    const network = await expectRefused("http://public.test/loop", "SOURCE_REDIRECT_FORBIDDEN");
    // The first request plus three followed redirects; the fourth redirect is refused.
    expect(publicOrigin.requests.length - requestsBefore).toBe(4);
    expect(network.dials).toHaveLength(4);
  });

  it("refuses an https → http downgrade, allows same-scheme and upgrades", () => {
    const from = new URL("https://cdn.example.com/a.png");
    expect(() => resolveRedirect(from, "http://cdn.example.com/b.png")).toThrow(/downgrade/);
    try {
      resolveRedirect(from, "http://cdn.example.com/b.png");
    } catch (error) {
      expect((error as { code?: string }).code).toBe("SOURCE_REDIRECT_FORBIDDEN");
    }
    expect(resolveRedirect(from, "/b.png").href).toBe("https://cdn.example.com/b.png");
    expect(resolveRedirect(new URL("http://a.example/x"), "https://b.example/y").href).toBe("https://b.example/y");
  });
});

describe("DNS rebinding", () => {
  // First answer public (routed to the public origin), every later answer loopback (the trap).
  const rebinding = (call: number) => (call === 1 ? [PUBLIC_IP] : ["127.0.0.1"]);

  it("connects to the address it checked: one lookup per connection, never a second one", async () => {
    const network = makeNetwork({ "rebind.test": rebinding });
    const result = await run("http://rebind.test/image", network);
    expect(result.bytes.equals(PUBLIC_BYTES)).toBe(true);
    expect(network.lookups).toEqual(["rebind.test"]);
    expect(network.dials).toEqual([{ address: PUBLIC_IP, port: 80 }]);
  });

  it("re-checks the new answer on the next connection (a redirect back to the same name)", async () => {
    const network = makeNetwork({ "rebind.test": rebinding });
    const target = `http://rebind.test:${trap4.port}/x.png`;
    await expectRefused(
      `http://rebind.test/redirect?to=${encodeURIComponent(target)}`,
      "SOURCE_REDIRECT_FORBIDDEN",
      network,
    );
    expect(network.lookups).toEqual(["rebind.test", "rebind.test"]);
    expect(network.dials).toEqual([{ address: PUBLIC_IP, port: 80 }]);
  });
});

describe("the peer address is re-checked after connect", () => {
  it("refuses a socket that landed on loopback although a public address was dialled, before sending a byte", async () => {
    const landing = await startOrigin((_req, res) => res.end("SHOULD NOT BE ASKED"));
    try {
      const dialled: string[] = [];
      // A misbehaving connect (a proxy, a bug): asked for the public address, it reaches loopback,
      // and the socket honestly reports 127.0.0.1 as its peer.
      const fetcher = createSourceFetcher({
        limits: { maxBytes: 1 << 20, timeoutMs: 3000, maxRedirects: 3, allowLoopback: false },
        localRoot: null,
        net: {
          lookup: async () => [{ address: PUBLIC_IP, family: 4 }],
          connect: ({ address }) => {
            dialled.push(address);
            if (address !== PUBLIC_IP) throw new Error(`test network: refusing to dial ${address}`);
            return net.connect({ host: "127.0.0.1", port: landing.port });
          },
        },
      });
      const error = await expectAppError(fetcher.fetch(parseSource("http://public.test/image")), "SOURCE_NOT_ALLOWED");
      expect(error.detail).toContain("127.0.0.1");
      expect(dialled).toEqual([PUBLIC_IP]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(landing.requests).toEqual([]);
    } finally {
      await landing.close();
    }
  });
});
