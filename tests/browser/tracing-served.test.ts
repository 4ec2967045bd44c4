import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapProject, startServedApp, type ServedApp } from "../support/browser";
import { descendants, startOtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";
import { signedFor } from "../support/signed-url";

/**
 * Traces from the built app as `npm start` runs it, to a collector on loopback. Next bundles each route
 * apart from the instrumentation hook: only a single copy of the OpenTelemetry API (next.config.mjs) lets
 * the route's spans reach the provider the hook registered, under Next's own request span. The batch
 * is not waited for: SIGTERM must send what is queued.
 */
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let app: ServedApp;
let vars: Record<string, string> = {};
let signed: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  app = await startServedApp(
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
    (dataDir) => {
      vars = bootstrapProject(dataDir);
    },
  );
  signed = signedFor(app.baseUrl, vars, "w_120,f_webp", "local/photo.jpg");
  for (let i = 0; i < 2; i++) expect((await fetch(signed)).status).toBe(200);
  expect((await app.cron("/api/cron/flush-usage-buffer")).status).toBe(200);
  expect(await app.terminate()).toBe(0);
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

const imageRequests = () => receiver.spans.filter((s) => s.name === "image.request");
const parentOf = (span: ReceivedSpan) => receiver.spans.find((s) => s.spanId === span.parentSpanId);

describe("tracing, served", () => {
  it("sends a cold and a cached request's spans on SIGTERM, each under Next's span for the request", () => {
    const [cold, cached] = ["miss", "hit"].map((cache) =>
      imageRequests().find((s) => s.attributes["optstuff.cache"] === cache),
    );
    expect(cold, receiver.spans.map((s) => s.name).join(", ")).toBeDefined();
    expect(cached).toBeDefined();
    for (const request of [cold!, cached!]) {
      const next = parentOf(request);
      expect(next?.scope).toBe("next.js");
      expect(next?.traceId).toBe(request.traceId);
    }
    const steps = new Set(descendants(receiver.spans, cold!).map((s) => s.name));
    for (const step of [
      "image.authorize",
      "image.limits",
      "image.source.fetch",
      "image.transform",
      "image.request_log",
    ])
      expect(steps.has(step), step).toBe(true);
    expect(cold!.resource["service.name"]).toBe("optstuff");
  });

  it("traces the cron route's job", () => {
    const job = receiver.spans.find((s) => s.name === "cron flush-usage-buffer");
    expect(job?.attributes["optstuff.cron.ok"]).toBe(true);
  });

  it("exports the URL Next records without its signature or key", () => {
    const sig = new URL(signed).searchParams.get("sig")!;
    const exported = receiver.bodies.join("\n");
    expect(exported).not.toContain(sig);
    expect(exported).not.toContain(vars.OPTSTUFF_SECRET_KEY!);
    expect(exported).not.toContain(vars.OPTSTUFF_PUBLIC_KEY!);
    expect(exported).not.toContain("photo.jpg");
    const targets = receiver.spans.flatMap((s) =>
      Object.values(s.attributes).filter((v): v is string => typeof v === "string" && v.includes("/api/v1/")),
    );
    // Next's span for the request records its target: its shape is kept, the source and query are not.
    expect(targets.length).toBeGreaterThan(0);
    for (const value of targets)
      expect(value).toMatch(/^\/api\/v1\/[^/]+\/w_120(,|%2C)f_webp\/\[source\](\?\[redacted\])?$/);
  });
});
