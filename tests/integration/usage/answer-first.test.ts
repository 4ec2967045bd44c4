import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestLog } from "@/server/db/schema";
import { createImageRouteHandler } from "@/server/http/image-route";
import type { Deployment } from "@/server/services";
import { createTestApp, type TestApp } from "../../support/app";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

/**
 * On Vercel the image route answers first and hands its record to the platform (waitUntil), so the
 * invocation lasts as long as answering, not the request log's 50 ms window more; elsewhere the
 * handler returns once its record is written (a process must not outrun it). The Node transport, as
 * the app serves it (src/pages/api/image-delivery.ts), with the platform's hand-off taken by the test.
 */
let app: TestApp;
let origin: Origin;

beforeAll(async () => {
  origin = await startOrigin({ "/a.png": serveBytes(await makePng(40, 30), "image/png") });
  app = await createTestApp({ sourceHosts: [origin.host] });
});
afterAll(async () => {
  await app?.close();
  await origin?.close();
});

async function served(deployment: Deployment, operations: string) {
  const handedOff: Array<Promise<unknown>> = [];
  let returned!: Promise<void>;
  const handler = createImageRouteHandler(
    async () => ({ ...app.services, deployment }),
    (work) => handedOff.push(work),
  );
  const server: Server = createServer((req, res) => {
    returned = handler.node(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}${app.signedPath(operations, `http://${origin.host}/a.png`)}`);
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  await returned;
  const rows = () => app.services.database.db.select().from(requestLog).where(eq(requestLog.operations, operations));
  const atReturn = (await rows()).length;
  await Promise.all(handedOff);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { handedOff: handedOff.length, atReturn, afterwards: (await rows()).length };
}

describe("answer first, record after", () => {
  it("returns on Vercel with the answer, its record handed to the platform and written after", async () => {
    expect(await served("vercel", "w_11,f_png")).toEqual({ handedOff: 1, atReturn: 0, afterwards: 1 });
  });

  it("returns elsewhere only once its record is written, handing nothing off", async () => {
    expect(await served("self-hosted", "w_12,f_png")).toEqual({ handedOff: 0, atReturn: 1, afterwards: 1 });
    expect(await served("embedded", "w_13,f_png")).toEqual({ handedOff: 0, atReturn: 1, afterwards: 1 });
  });
});
