import { bootLogger } from "@/server/log";
import type { TracingValues } from "./settings";

/** The collector's traces URL: the specific variable as given, else the base URL's `/v1/traces`. */
export function tracesUrl(e: TracingValues): string | null {
  if (e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!e.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  return `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
}

/**
 * Starts tracing when an endpoint is set; otherwise loads nothing (src/instrumentation.ts). True when
 * tracing runs.
 */
export async function startTracingIfConfigured(e: TracingValues): Promise<boolean> {
  const url = tracesUrl(e);
  if (url === null) return false;
  const protocol = e.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol === "grpc") {
    bootLogger.log("warn", "tracing is off: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not spoken (use http/protobuf)");
    return false;
  }
  const { startTracing } = await import("./start-tracing");
  await startTracing({
    url,
    protocol,
    headers: e.OTEL_EXPORTER_OTLP_HEADERS,
    serviceName: e.OTEL_SERVICE_NAME,
  });
  // The origin only: a path or query may carry a hosted collector's token.
  bootLogger.log("info", "tracing started", {
    collector: new URL(url).origin,
    protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL,
  });
  return true;
}
