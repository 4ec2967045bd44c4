import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { parseSource } from "@/server/source/parse-source";

function remoteHref(raw: string): string {
  const location = parseSource(raw);
  if (location.kind !== "remote") throw new Error(`expected a remote location for ${raw}`);
  return location.url.href;
}

function expectInvalid(raw: string): void {
  let thrown: unknown;
  try {
    parseSource(raw);
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `${raw} should be refused`).toBeInstanceOf(AppError);
  expect((thrown as AppError).code).toBe("INVALID_SOURCE");
}

describe("parseSource: remote sources", () => {
  it("means https when no scheme is written", () => {
    expect(remoteHref("images.example.com/photo.jpg")).toBe("https://images.example.com/photo.jpg");
  });

  it("keeps an explicit http or https scheme, in any case", () => {
    expect(remoteHref("http://cdn.example.com/a.png")).toBe("http://cdn.example.com/a.png");
    expect(remoteHref("https://cdn.example.com/a.png")).toBe("https://cdn.example.com/a.png");
    expect(remoteHref("HTTPS://cdn.example.com/a.png")).toBe("https://cdn.example.com/a.png");
  });

  it("restores a collapsed https:/host and http:/host", () => {
    expect(remoteHref("https:/cdn.example.com/a.png")).toBe("https://cdn.example.com/a.png");
    expect(remoteHref("http:/cdn.example.com/a.png")).toBe("http://cdn.example.com/a.png");
  });

  it("handles the contract's example with a port and an encoded space, keeping the encoding", () => {
    const location = parseSource("cdn.example.com:8443/a%20b.png");
    expect(location.kind).toBe("remote");
    if (location.kind !== "remote") return;
    expect(location.url.href).toBe("https://cdn.example.com:8443/a%20b.png");
    expect(location.url.port).toBe("8443");
    expect(location.url.pathname).toBe("/a%20b.png");
  });

  it("keeps the query string and encodes what must be encoded", () => {
    expect(remoteHref("cdn.example.com/a.png?v=2")).toBe("https://cdn.example.com/a.png?v=2");
    expect(remoteHref("cdn.example.com/café.jpg")).toBe("https://cdn.example.com/caf%C3%A9.jpg");
  });

  it("writes IDN hosts in punycode and lower case", () => {
    expect(remoteHref("Café.Example/x.png")).toBe("https://xn--caf-dma.example/x.png");
  });

  it.each([
    ["2130706433", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["127.0.0.1.", "127.0.0.1"],
    ["167772161", "10.0.0.1"],
    ["012.0.0.1", "10.0.0.1"],
    ["0xa.0.0.1", "10.0.0.1"],
    ["0xc0a80001", "192.168.0.1"],
    ["2852039166", "169.254.169.254"],
    ["0", "0.0.0.0"],
  ])("canonicalises the IPv4 spelling %s to %s", (spelling, dotted) => {
    const location = parseSource(`${spelling}/x.png`);
    expect(location.kind === "remote" && location.url.hostname).toBe(dotted);
  });

  it("canonicalises IPv6 literals", () => {
    expect(remoteHref("[0:0:0:0:0:ffff:a00:1]/x")).toBe("https://[::ffff:a00:1]/x");
    expect(remoteHref("http://[::ffff:127.0.0.1]:8080/x")).toBe("http://[::ffff:7f00:1]:8080/x");
  });

  it("does not mistake an @ in the path for credentials", () => {
    expect(remoteHref("cdn.example.com/icons/logo@2x.png")).toBe("https://cdn.example.com/icons/logo@2x.png");
  });

  it("reads host:port without a scheme as a host, not as a scheme", () => {
    expect(remoteHref("localhost:3000/x.png")).toBe("https://localhost:3000/x.png");
  });

  it.each([
    "ftp://example.com/a.png",
    "file:///etc/passwd",
    "file:/etc/passwd",
    "data:image/png;base64,iVBORw0KGgo=",
    "javascript:alert(1)",
    "gopher://127.0.0.1:70/x",
    "ws://example.com/a",
    "blob:https://example.com/uuid",
    "https:example.com/a.png",
    "https:///example.com/a.png",
  ])("refuses the scheme of %s", (raw) => expectInvalid(raw));

  it.each([
    "user:pass@example.com/a.png",
    "https://user:pass@example.com/a.png",
    "https://user@example.com/a.png",
    "https://@example.com/a.png",
    "example.com@127.0.0.1/a.png",
  ])("refuses credentials in %s", (raw) => expectInvalid(raw));

  it.each(["", "https://", "exa mple.com/a.png", "example.com:99999/a.png", "[::1/a.png", "example.com:abc/a.png"])(
    "refuses the unparseable %j",
    (raw) => expectInvalid(raw),
  );
});

describe("parseSource: local sources", () => {
  it("reads local/<path> as a file under the local root, taken literally", () => {
    expect(parseSource("local/images/a.png")).toEqual({ kind: "local", relativePath: "images/a.png" });
    expect(parseSource("local/a%20b.png")).toEqual({ kind: "local", relativePath: "a%20b.png" });
  });

  it("only treats an exact first segment `local` as local", () => {
    expect(parseSource("localhost.example.com/a.png").kind).toBe("remote");
    expect(parseSource("local.example.com/a.png").kind).toBe("remote");
  });

  it.each([
    "local",
    "local/",
    "local//etc/passwd",
    "local/../secret.png",
    "local/a/../../secret.png",
    "local/a/..",
    "local/./a.png",
    "local/a//b.png",
    "local/a\\..\\b.png",
    "local/a\0.png",
  ])("refuses %j", (raw) => expectInvalid(raw));
});

describe("parseSource: private buckets", () => {
  it("reads s3/{alias}/{key}, the key taken literally", () => {
    expect(parseSource("s3/media/photos/a b.jpg")).toEqual({ kind: "bucket", alias: "media", key: "photos/a b.jpg" });
    expect(parseSource("s3/m-2/x%20y.png")).toEqual({ kind: "bucket", alias: "m-2", key: "x%20y.png" });
  });

  it("only treats an exact first segment `s3` as a bucket", () => {
    expect(parseSource("s3.amazonaws.com/bucket/a.png").kind).toBe("remote");
    expect(parseSource("s3-eu.example.com/a.png").kind).toBe("remote");
  });

  it.each([
    "s3",
    "s3/",
    "s3/media",
    "s3/media/",
    "s3/Media/a.jpg",
    "s3/-x/a.jpg",
    "s3/media/a//b.jpg",
    "s3/media/../b.jpg",
    "s3/media/./b.jpg",
    "s3/media/a\u0001.jpg",
  ])("refuses %j", (raw) => expectInvalid(raw));
});
