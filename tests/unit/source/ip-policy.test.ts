import { describe, expect, it } from "vitest";
import { classifyAddress, forbiddenRanges, isForbiddenHostname } from "@/server/source/ip-policy";

interface RangeCase {
  cidr: string;
  first: string;
  last: string;
  /** The addresses just outside the range, where those are public. */
  publicNeighbours: string[];
}

// Written out by hand (not computed from the table) so the test is an independent oracle.
const ipv4Cases: RangeCase[] = [
  { cidr: "0.0.0.0/8", first: "0.0.0.0", last: "0.255.255.255", publicNeighbours: ["1.0.0.0"] },
  { cidr: "10.0.0.0/8", first: "10.0.0.0", last: "10.255.255.255", publicNeighbours: ["9.255.255.255", "11.0.0.0"] },
  {
    cidr: "100.64.0.0/10",
    first: "100.64.0.0",
    last: "100.127.255.255",
    publicNeighbours: ["100.63.255.255", "100.128.0.0"],
  },
  {
    cidr: "127.0.0.0/8",
    first: "127.0.0.0",
    last: "127.255.255.255",
    publicNeighbours: ["126.255.255.255", "128.0.0.0"],
  },
  {
    cidr: "169.254.0.0/16",
    first: "169.254.0.0",
    last: "169.254.255.255",
    publicNeighbours: ["169.253.255.255", "169.255.0.0"],
  },
  { cidr: "169.254.169.254/32", first: "169.254.169.254", last: "169.254.169.254", publicNeighbours: [] },
  {
    cidr: "172.16.0.0/12",
    first: "172.16.0.0",
    last: "172.31.255.255",
    publicNeighbours: ["172.15.255.255", "172.32.0.0"],
  },
  { cidr: "192.0.0.0/24", first: "192.0.0.0", last: "192.0.0.255", publicNeighbours: ["191.255.255.255", "192.0.1.0"] },
  { cidr: "192.0.2.0/24", first: "192.0.2.0", last: "192.0.2.255", publicNeighbours: ["192.0.1.255", "192.0.3.0"] },
  {
    cidr: "192.88.99.0/24",
    first: "192.88.99.0",
    last: "192.88.99.255",
    publicNeighbours: ["192.88.98.255", "192.88.100.0"],
  },
  {
    cidr: "192.168.0.0/16",
    first: "192.168.0.0",
    last: "192.168.255.255",
    publicNeighbours: ["192.167.255.255", "192.169.0.0"],
  },
  {
    cidr: "198.18.0.0/15",
    first: "198.18.0.0",
    last: "198.19.255.255",
    publicNeighbours: ["198.17.255.255", "198.20.0.0"],
  },
  {
    cidr: "198.51.100.0/24",
    first: "198.51.100.0",
    last: "198.51.100.255",
    publicNeighbours: ["198.51.99.255", "198.51.101.0"],
  },
  {
    cidr: "203.0.113.0/24",
    first: "203.0.113.0",
    last: "203.0.113.255",
    publicNeighbours: ["203.0.112.255", "203.0.114.0"],
  },
  { cidr: "224.0.0.0/4", first: "224.0.0.0", last: "239.255.255.255", publicNeighbours: ["223.255.255.255"] },
  { cidr: "240.0.0.0/4", first: "240.0.0.0", last: "255.255.255.254", publicNeighbours: [] },
  { cidr: "255.255.255.255/32", first: "255.255.255.255", last: "255.255.255.255", publicNeighbours: [] },
];

const ones = "ffff:ffff:ffff:ffff:ffff";
const ipv6Cases: RangeCase[] = [
  { cidr: "::/128", first: "::", last: "::", publicNeighbours: [] },
  { cidr: "::1/128", first: "::1", last: "::1", publicNeighbours: [] },
  { cidr: "::/96", first: "::2", last: "::ffff:ffff", publicNeighbours: [] },
  { cidr: "64:ff9b:1::/48", first: "64:ff9b:1::", last: `64:ff9b:1:${ones}`, publicNeighbours: [] },
  { cidr: "100::/64", first: "100::", last: "100::ffff:ffff:ffff:ffff", publicNeighbours: [] },
  { cidr: "2001::/32", first: "2001::", last: "2001:0:ffff:ffff:ffff:ffff:ffff:ffff", publicNeighbours: [] },
  {
    cidr: "2001::/23",
    first: "2001:1::",
    last: `2001:1ff:ffff:${ones}`,
    publicNeighbours: [`2000:ffff:ffff:${ones}`, "2001:200::"],
  },
  {
    cidr: "2001:db8::/32",
    first: "2001:db8::",
    last: `2001:db8:ffff:${ones}`,
    publicNeighbours: [`2001:db7:ffff:${ones}`, "2001:db9::"],
  },
  {
    cidr: "3fff::/20",
    first: "3fff::",
    last: `3fff:fff:ffff:${ones}`,
    publicNeighbours: [`3ffe:ffff:ffff:${ones}`, "3fff:1000::"],
  },
  { cidr: "fc00::/7", first: "fc00::", last: `fdff:ffff:ffff:${ones}`, publicNeighbours: [] },
  { cidr: "fe80::/10", first: "fe80::", last: `febf:ffff:ffff:${ones}`, publicNeighbours: [] },
  { cidr: "fec0::/10", first: "fec0::", last: `feff:ffff:ffff:${ones}`, publicNeighbours: [] },
  { cidr: "ff00::/8", first: "ff00::", last: `ffff:ffff:ffff:${ones}`, publicNeighbours: [] },
  { cidr: "::/3", first: "::1:0:0", last: `1fff:ffff:ffff:${ones}`, publicNeighbours: ["2000::"] },
  { cidr: "4000::/2", first: "4000::", last: `7fff:ffff:ffff:${ones}`, publicNeighbours: [`3fff:ffff:ffff:${ones}`] },
  { cidr: "8000::/1", first: "8000::", last: `fbff:ffff:ffff:${ones}`, publicNeighbours: [] },
];

function expectRefused(ip: string, rangeLabel?: string, allowLoopback = false): void {
  const verdict = classifyAddress(ip, allowLoopback);
  expect(verdict.allowed, `${ip} should be refused`).toBe(false);
  if (rangeLabel !== undefined && !verdict.allowed) expect(verdict.range).toContain(rangeLabel);
}

function expectAllowed(ip: string, allowLoopback = false): void {
  expect(classifyAddress(ip, allowLoopback), `${ip} should be allowed`).toEqual({ allowed: true });
}

describe("classifyAddress: every range of the table at both edges", () => {
  it.each([...ipv4Cases, ...ipv6Cases])(
    "$cidr: refuses $first and $last, allows the public neighbours $publicNeighbours",
    ({ cidr, first, last, publicNeighbours }) => {
      expectRefused(first, cidr);
      // The last address may belong to a narrower entry listed first (240/4 ends in the broadcast).
      expectRefused(last);
      for (const ip of publicNeighbours) expectAllowed(ip);
    },
  );

  it("has a test case for every entry of the table", () => {
    const tested = new Set([...ipv4Cases, ...ipv6Cases].map((c) => c.cidr));
    const embedded = new Set(["::ffff:0:0/96", "64:ff9b::/96", "2002::/16"]);
    for (const range of forbiddenRanges) {
      expect(tested.has(range.cidr) || embedded.has(range.cidr), range.cidr).toBe(true);
    }
  });

  it("refuses the network address of every table entry", () => {
    for (const range of forbiddenRanges) expectRefused(range.cidr.split("/")[0] ?? "");
  });
});

describe("classifyAddress: IPv6 forms embedding IPv4", () => {
  it.each([
    ["::ffff:127.0.0.1", "127.0.0.0/8"],
    ["::ffff:7f00:1", "127.0.0.0/8"],
    ["0:0:0:0:0:ffff:a00:1", "10.0.0.0/8"],
    ["::ffff:169.254.169.254", "cloud metadata"],
    ["::ffff:0.0.0.0", "0.0.0.0/8"],
    ["::ffff:255.255.255.255", "broadcast"],
    ["64:ff9b::7f00:1", "NAT64"],
    ["64:ff9b::10.1.2.3", "10.0.0.0/8"],
    ["64:ff9b::c0a8:101", "192.168.0.0/16"],
    ["2002:7f00:1::", "6to4"],
    ["2002:a00:1::", "10.0.0.0/8"],
    ["2002:c0a8:101::1", "192.168.0.0/16"],
    ["2002:a9fe:a9fe::", "cloud metadata"],
  ])("refuses %s (%s)", (ip, label) => expectRefused(ip, label));

  it.each(["::ffff:8.8.8.8", "::ffff:5db8:d822", "64:ff9b::808:808", "2002:808:808::1"])(
    "judges %s by its public embedded address and allows it",
    (ip) => expectAllowed(ip),
  );

  it("refuses IPv4-compatible addresses outright, even with a public IPv4 inside", () => {
    expectRefused("::127.0.0.1", "IPv4-compatible");
    expectRefused("::8.8.8.8", "IPv4-compatible");
    expectRefused("::7f00:1", "IPv4-compatible");
  });

  it("refuses the unspecified addresses", () => {
    expectRefused("::", "unspecified");
    expectRefused("0:0:0:0:0:0:0:0", "unspecified");
    expectRefused("0.0.0.0", "0.0.0.0/8");
  });
});

describe("classifyAddress: the allowLoopback flag", () => {
  it("refuses loopback by default", () => {
    for (const ip of ["127.0.0.1", "127.255.255.255", "::1", "::ffff:127.0.0.1"]) expectRefused(ip, "loopback");
  });

  it("opens loopback (and nothing else) when the flag is on", () => {
    for (const ip of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) expectAllowed(ip, true);
    for (const ip of [
      "0.0.0.0",
      "::",
      "10.0.0.1",
      "169.254.169.254",
      "fe80::1",
      "fc00::1",
      "::127.0.0.1",
      "::ffff:10.0.0.1",
      "64:ff9b::7f00:1",
      "2002:7f00:1::",
    ]) {
      expectRefused(ip, undefined, true);
    }
  });
});

describe("classifyAddress: input handling", () => {
  it("allows ordinary public addresses", () => {
    for (const ip of ["8.8.8.8", "93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001:830::200e"])
      expectAllowed(ip);
  });

  it("fails closed on anything that is not an IP address", () => {
    for (const text of ["", "localhost", "example.com", "1.2.3", "0x7f.1", "2130706433", "::gg", "1.2.3.4.5"]) {
      expectRefused(text, "not an IP address");
    }
  });

  it("accepts brackets and zone ids without changing the verdict", () => {
    expectRefused("[::1]", "loopback");
    expectRefused("fe80::1%eth0", "link-local");
    expectAllowed("[2606:4700:4700::1111]");
  });
});

describe("isForbiddenHostname", () => {
  it.each([
    "localhost",
    "LOCALHOST",
    "localhost.",
    "foo.localhost",
    "a.b.localhost",
    "metadata.google.internal",
    "metadata",
    "instance-data",
    "db.internal",
    "printer.local",
    "nas.localdomain",
    "router.home.arpa",
    "intranet",
    "",
    ".",
  ])("refuses %j", (name) => expect(isForbiddenHostname(name)).toBe(true));

  it.each(["example.com", "cdn.example.com.", "localhost.example.com", "internal.example.com", "xn--caf-dma.example"])(
    "allows %j",
    (name) => expect(isForbiddenHostname(name)).toBe(false),
  );

  it("leaves IP literals to the address policy", () => {
    for (const ip of ["127.0.0.1", "::1", "[::1]", "10.0.0.1"]) expect(isForbiddenHostname(ip)).toBe(false);
  });
});
