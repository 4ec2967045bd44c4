import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { context, propagation, trace } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTracing } from "@/server/telemetry/start-tracing";
import { stopTracing, tracingStarted } from "@/server/telemetry/spans";
import { createTestApp, filesStore, type TestApp } from "../../support/app";
import { callerFor, signUp } from "../../support/dashboard";
import { descendants, startOtlpReceiver, type ReceivedSpan } from "../../support/otlp-receiver";

const COLLECTOR_TOKEN = "collector-token-7f3a9c";

let app: TestApp;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let resultsDir: string;
let before: { requestId: string };
let cold: { path: string; requestId: string };
let cached: { requestId: string };
let cookie: string;
let queued: string[];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  resultsDir = mkdtempSync(path.join(os.tmpdir(), "optstuff-tracing-"));
  app = await createTestApp({
    env: {
      ...filesStore(resultsDir, 64 * 2 ** 20),
      // One transform at a time: a second one waits, and is started by the first one's end.
      OPTSTUFF_TRANSFORM_CONCURRENCY: "1",
    },
  });

  // Before tracing starts: no span, whatever happens.
  expect((await app.fetch(app.signedPath("w_40", "local/logo.png"))).status).toBe(200);
  await app.settled();
  before = { requestId: app.outcomes.at(-1)!.requestId };

  await startTracing({
    url: `${receiver.endpoint}/v1/traces`,
    protocol: "http/json",
    headers: { "x-collector-token": COLLECTOR_TOKEN },
    serviceName: "optstuff-test",
  });
  const path_ = app.signedPath("w_64", "local/photo.jpg");
  expect((await app.fetch(path_)).status).toBe(200);
  await app.settled();
  cold = { path: path_, requestId: app.outcomes.at(-1)!.requestId };
  // The same URL again, with a traceparent a client made up: it must not join or switch off our trace.
  const again = await app.fetch(path_, {
    headers: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00" },
  });
  expect(again.status).toBe(200);
  await app.settled();
  cached = { requestId: app.outcomes.at(-1)!.requestId };

  const both = await Promise.all(
    ["w_48", "w_56"].map((width) => app.fetch(app.signedPath(`${width},f_webp`, "local/photo.jpg"))),
  );
  expect(both.map((r) => r.status)).toEqual([200, 200]);
  await app.settled();
  queued = app.outcomes.slice(-2).map((o) => o.requestId);

  const user = await signUp(app.services, "tracer");
  cookie = user.cookie;
  const caller = await callerFor(app.services, cookie);
  await caller.account.me();
  await expect(caller.project.get({ teamSlug: "no-such-team", projectSlug: "nothing" })).rejects.toThrow();
  await app.services.jobs.cron.flushUsage();
  await app.settled();
  // Sends everything queued, as a stopping server does.
  await stopTracing();
}, 120_000);

afterAll(async () => {
  trace.disable();
  context.disable();
  propagation.disable();
  await app?.close();
  await receiver?.close();
  rmSync(resultsDir, { recursive: true, force: true });
});

const requestSpan = (requestId: string): ReceivedSpan | undefined =>
  receiver.spans.find((s) => s.name === "image.request" && s.attributes["optstuff.request_id"] === requestId);

/** The steps a trace shows, each once (a request may ask the limits twice: charged once, asked again). */
const names = (spans: readonly ReceivedSpan[]) => [...new Set(spans.map((s) => s.name))].sort();

describe("OpenTelemetry traces over OTLP", () => {
  it("records nothing before tracing starts, and stops recording once stopped", () => {
    expect(requestSpan(before.requestId)).toBeUndefined();
    expect(tracingStarted()).toBe(false);
  });

  it("follows a cold image request through authorization, limits, the store, the source, the queue, the transform and the request log", () => {
    const root = requestSpan(cold.requestId)!;
    expect(root).toBeDefined();
    expect(root.parentSpanId).toBeUndefined();
    expect(root.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.response.status_code": 200,
      "optstuff.cache": "miss",
      "optstuff.project_id": app.projectId,
      "optstuff.output_format": "jpeg",
    });
    const trace_ = descendants(receiver.spans, root);
    expect(names(trace_)).toEqual(
      [
        "image.authorize",
        "image.limits",
        "image.request",
        "image.request_log",
        "image.source.fetch",
        "image.store.read",
        "image.store.write",
        "image.transform",
        "image.transform.queue",
      ].sort(),
    );
    expect(new Set(trace_.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
    const byName = Object.fromEntries(trace_.map((s) => [s.name, s]));
    expect(byName["image.store.read"]!.attributes["optstuff.store.hit"]).toBe(false);
    expect(byName["image.source.fetch"]!.attributes).toMatchObject({ "optstuff.source.kind": "local" });
    expect(byName["image.source.fetch"]!.attributes["optstuff.source.bytes"]).toBeGreaterThan(1000);
    expect(byName["image.transform"]!.attributes).toMatchObject({ "optstuff.output_format": "jpeg" });
    const charges = trace_.filter((s) => s.name === "image.limits").map((s) => s.attributes["optstuff.limits.charge"]);
    expect(charges).toContain("transform");
    expect(trace_.every((s) => s.status !== 2)).toBe(true);
  });

  it("shows a cached request as authorization, limits and the request log only, in a trace of its own", () => {
    const root = requestSpan(cached.requestId)!;
    expect(root.attributes["optstuff.cache"]).toBe("hit");
    // The client's traceparent was ignored: a new trace, not the one it named.
    expect(root.parentSpanId).toBeUndefined();
    expect(root.traceId).not.toBe("0af7651916cd43dd8448eb211c80319c");
    expect(root.traceId).not.toBe(requestSpan(cold.requestId)!.traceId);
    expect(names(descendants(receiver.spans, root))).toEqual([
      "image.authorize",
      "image.limits",
      "image.request",
      "image.request_log",
    ]);
  });

  it("keeps a queued transform in its own request's trace, not in the one whose end started it", () => {
    for (const requestId of queued) {
      const steps = descendants(receiver.spans, requestSpan(requestId)!).map((s) => s.name);
      expect(
        steps.filter((name) => name === "image.transform"),
        requestId,
      ).toHaveLength(1);
      expect(
        steps.filter((name) => name === "image.transform.queue"),
        requestId,
      ).toHaveLength(1);
    }
  });

  it("traces dashboard procedures, a refusal marked failed with its code", () => {
    const me = receiver.spans.find((s) => s.name === "trpc account.me")!;
    expect(me.attributes).toMatchObject({ "rpc.system": "trpc", "rpc.method": "account.me" });
    expect(me.status).not.toBe(2);
    const refused = receiver.spans.find((s) => s.name === "trpc project.get")!;
    expect(refused.status).toBe(2);
    expect(refused.attributes["error.type"]).toMatch(/^[A-Z_]+$/);
  });

  it("traces cron jobs", () => {
    const flush = receiver.spans.find((s) => s.name === "cron flush-usage-buffer")!;
    expect(flush.attributes).toMatchObject({ "optstuff.cron.job": "flush-usage-buffer", "optstuff.cron.ok": true });
  });

  it("names the service, sends the collector's headers, and exports no secret, signature or key", () => {
    expect(receiver.spans.every((s) => s.resource["service.name"] === "optstuff-test")).toBe(true);
    expect(receiver.headers.every((h) => h["x-collector-token"] === COLLECTOR_TOKEN)).toBe(true);
    const sig = new URL(cold.path, "http://x").searchParams.get("sig")!;
    const exported = receiver.bodies.join("\n");
    for (const secret of [sig, app.key.secretKey, "test-master", "test-auth", "test-cron", cookie, COLLECTOR_TOKEN])
      expect(exported).not.toContain(secret);
  });
});
