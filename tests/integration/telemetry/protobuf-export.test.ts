import { context, propagation, trace } from "@opentelemetry/api";
import { afterAll, expect, it } from "vitest";
import { startTracing } from "@/server/telemetry/start-tracing";
import { stopTracing, traced } from "@/server/telemetry/spans";
import { startOtlpReceiver } from "../../support/otlp-receiver";

const receiver = await startOtlpReceiver();

afterAll(async () => {
  trace.disable();
  context.disable();
  propagation.disable();
  await receiver.close();
});

it("exports in OTLP protobuf by default, the encoding collectors expect, redacted as in JSON", async () => {
  await startTracing({
    url: `${receiver.endpoint}/v1/traces`,
    protocol: "http/protobuf",
    headers: {},
    serviceName: "optstuff-proto",
  });
  await traced(
    "image.request",
    { "http.target": "/api/v1/p/w_1/local%2Fa.png?key=pk_k&sig=c2lnbmF0dXJlLXZhbHVl" },
    () => Promise.resolve(),
  );
  await stopTracing();
  expect(receiver.protobuf).toHaveLength(1);
  const body = receiver.protobuf[0]!.toString("latin1");
  expect(body).toContain("image.request");
  expect(body).toContain("optstuff-proto");
  expect(body).toContain("/api/v1/p/w_1/[source]?[redacted]");
  expect(body).not.toContain("c2lnbmF0dXJlLXZhbHVl");
  expect(receiver.spans).toHaveLength(0);
});
