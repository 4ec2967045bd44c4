import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../support/app";
import { makePng } from "../../support/images";
import { startOrigin, type Origin } from "../../support/origin";

// Contract §4: Server-Timing reports this request's phases. A request that joined another's job for
// the same variant waited for it; it did not fetch or transform, and no phase exceeds its total.
let app: TestApp;
let origin: Origin;
const HOLD_MS = 600;

beforeAll(async () => {
  const png = await makePng(64, 64);
  origin = await startOrigin({
    "/slow.png": (_request: http.IncomingMessage, response: http.ServerResponse) => {
      setTimeout(
        () => void response.writeHead(200, { "Content-Type": "image/png", "Content-Length": png.length }).end(png),
        HOLD_MS,
      );
    },
  });
  app = await createTestApp({ sourceHosts: [origin.host] });
});

afterAll(async () => {
  await app?.close();
  await origin?.close();
});

function phases(header: string | null): Record<string, number> {
  return Object.fromEntries(
    (header ?? "").split(",").map((part) => {
      const [name, dur] = part.trim().split(";dur=");
      return [name!, Number(dur)];
    }),
  );
}

describe("Server-Timing of a shared job", () => {
  it("reports the wait of the request that joined, not the first request's fetch and transform", async () => {
    const path = app.signedPath("w_30,f_png", `http://${origin.host}/slow.png`);
    const first = app.fetch(path);
    // Well inside the origin's hold: the first request's job is running when the second arrives.
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS / 4));
    const second = await app.fetch(path);
    const leader = await first;
    expect([leader.status, second.status]).toEqual([200, 200]);
    expect(origin.requests.length).toBe(1);

    const led = phases(leader.headers.get("server-timing"));
    const joined = phases(second.headers.get("server-timing"));
    expect(Object.keys(led)).toEqual(["auth", "fetch", "queue", "transform", "total"]);
    expect(Object.keys(joined)).toEqual(["auth", "wait", "total"]);
    expect(joined.wait).toBeGreaterThan(HOLD_MS / 4);
    for (const timing of [led, joined]) {
      for (const [name, ms] of Object.entries(timing))
        if (name !== "total") expect(ms).toBeLessThanOrEqual(timing.total!);
    }
    await app.settled();
    expect(app.outcomes.map((o) => o.cache).sort()).toEqual(["miss", "shared"]);
  });
});
