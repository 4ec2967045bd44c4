import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-node";
import { redactAttributes } from "./redact";
import { setTracingHandle } from "./spans";

export interface TracingOptions {
  /** Where spans are posted (the collector's `/v1/traces`). */
  url: string;
  protocol: "http/protobuf" | "http/json";
  headers: Record<string, string>;
  serviceName: string;
}

/**
 * Registers the OpenTelemetry SDK. Loaded only when an OTLP endpoint is configured (configured.ts), so
 * a server without one never pays for it. Incoming `traceparent` headers are ignored: the image API is
 * public, and a client must neither join an operator's traces nor switch their sampling off.
 */
export async function startTracing(options: TracingOptions): Promise<void> {
  const { OTLPTraceExporter } =
    options.protocol === "http/json"
      ? await import("@opentelemetry/exporter-trace-otlp-http")
      : await import("@opentelemetry/exporter-trace-otlp-proto");
  const exporter = new OTLPTraceExporter({ url: options.url, headers: options.headers });
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ "service.name": options.serviceName })),
    // Redaction runs first, before the batch holds the span for export.
    spanProcessors: [redacting, new BatchSpanProcessor(exporter)],
  });
  provider.register({ propagator: null });
  setTracingHandle({ shutdown: () => provider.shutdown() });
}

const redacting: SpanProcessor = {
  onStart: () => undefined,
  onEnd: (span: ReadableSpan) => redactAttributes(span.attributes),
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};
