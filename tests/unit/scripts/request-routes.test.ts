import http from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { IMAGE_API_KEY } from "@/server/http/published-image-api";
import { createPeerAddressServer } from "../../../scripts/peer-address.mjs";
import { createRequestRouter, IMAGE_API_KEY as SCRIPT_KEY } from "../../../scripts/request-routes.mjs";

/**
 * How `npm start` (scripts/server.mjs) routes: the image API to the handler the app published, past
 * Next's router; everything else to Next, compressed. Over a real socket, with handlers that say who
 * answered.
 */
const answeredBy = (who: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.setHeader("content-type", "text/plain");
  res.end(`${who} `.repeat(1000));
};

let server: http.Server | undefined;
async function serve(published: Record<symbol, unknown>): Promise<string> {
  server = createPeerAddressServer(createRequestRouter(answeredBy("next"), published));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function get(url: string): Promise<{ who: string; encoding: string | null }> {
  // Node's fetch decodes gzip itself and keeps the header that says it was.
  const response = await fetch(url, { headers: { "accept-encoding": "gzip" } });
  return { who: (await response.text()).split(" ")[0]!, encoding: response.headers.get("content-encoding") };
}

function rawGet(base: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}/`, { path }, (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString()));
        response.on("end", () => resolve(text.split(" ")[0]!));
      })
      .on("error", reject);
  });
}

describe("the app server's routes", () => {
  it("looks the image API up under the name the app publishes it by", () => {
    expect(SCRIPT_KEY).toBe(IMAGE_API_KEY);
  });

  it("sends the image API to the published handler, uncompressed, and the rest to Next, compressed", async () => {
    const base = await serve({ [Symbol.for(IMAGE_API_KEY)]: answeredBy("image-api") });
    expect(await get(`${base}/api/v1/p/w_10/a.jpg?key=k&sig=s`)).toEqual({ who: "image-api", encoding: null });
    expect(await get(`${base}/api/v1/p/w_10/%zz`)).toEqual({ who: "image-api", encoding: null });
    expect(await get(`${base}/api/v1`)).toMatchObject({ who: "next" });
    // What Next's router redirects (trailing slash, doubled or back slashes) stays with it.
    for (const path of ["/api/v1/p/w_10/a.jpg/", "/api/v1/p/w_10//a.jpg"])
      expect(await get(`${base}${path}`), path).toMatchObject({ who: "next" });
    // fetch would turn a backslash into a slash: sent as written.
    expect(await rawGet(base, "/api/v1/p/w_10/a\\b.jpg?x=1")).toBe("next");
    expect(await get(`${base}/api/health`)).toMatchObject({ who: "next" });
    expect(await get(`${base}/`)).toEqual({ who: "next", encoding: "gzip" });
  });

  it("sends the image API to Next's router while nothing is published", async () => {
    const base = await serve({});
    expect(await get(`${base}/api/v1/p/w_10/a.jpg`)).toEqual({ who: "next", encoding: null });
  });
});
