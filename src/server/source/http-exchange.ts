import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type Socket } from "node:net";
import tls from "node:tls";

/**
 * The headers every source request carries (plus, when the source cache revalidates its copy,
 * If-None-Match / If-Modified-Since from the origin's own earlier answer). Nothing from the client (cookies, authorization,
 * referer, forwarded-for) is ever passed on: the origin must not be able to tell who asked.
 */
export const SOURCE_REQUEST_HEADERS = {
  Accept: "image/avif,image/webp,image/*;q=0.8",
  "User-Agent": "OptStuff",
  // Compressed transfer would need inflating, which the byte cap could not bound (a zip bomb).
  "Accept-Encoding": "identity",
} as const;

/** The URL's host without IPv6 brackets, as DNS, TLS and isIP expect it. */
export function bareHostname(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

export function effectivePort(url: URL): number {
  return url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/**
 * Wraps the already checked TCP socket in TLS for https. Certificate verification stays on (the
 * default) and is made against the URL's host name (SNI too), never against the resolved IP.
 */
export function secureIfNeeded(url: URL, socket: Socket): Socket {
  if (url.protocol !== "https:") return socket;
  // A fully qualified `example.com.` is the same name for SNI and certificates, written without the dot.
  const host = bareHostname(url).replace(/\.$/, "");
  // SNI must not carry an IP literal (RFC 6066); `host` still drives the certificate check then.
  return tls.connect({ socket, host, servername: isIP(host) === 0 ? host : undefined, ALPNProtocols: ["http/1.1"] });
}

/**
 * Sends the GET over `socket` (via `createConnection`, so http/https never dial or resolve anything
 * themselves) and resolves with the response once its headers arrived.
 */
export function sendGet(url: URL, socket: Socket, extraHeaders: Record<string, string> = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    const request = transport.request({
      method: "GET",
      host: bareHostname(url),
      port: effectivePort(url),
      path: `${url.pathname}${url.search}`,
      setHost: false,
      headers: { Host: url.host, ...SOURCE_REQUEST_HEADERS, ...extraHeaders },
      createConnection: () => socket,
    });
    request.once("response", resolve);
    // `on`, not `once`: a socket error may also surface here after the response started; an
    // 'error' without a listener would crash the process (the body reader reports it instead).
    request.on("error", reject);
    request.end();
  });
}
