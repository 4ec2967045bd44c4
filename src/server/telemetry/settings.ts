import { z } from "zod";
import { choice, group, parsed, textWithDefault, type ValuesOf } from "@/server/config/setting";

const httpUrl = z.url({ protocol: /^https?$/, error: "an http(s) URL" }).optional();

/** `api-key=abc,x-team=t%201` (the OTLP exporter's format, values percent-encoded) → a header record. */
const headerList = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const headers: Record<string, string> = {};
    for (const pair of (text ?? "").split(",").filter((p) => p.trim() !== "")) {
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      if (at <= 0 || !/^[A-Za-z0-9-]+$/.test(name)) {
        ctx.addIssue({ code: "custom", message: "expected name=value pairs separated by commas" });
        continue;
      }
      try {
        headers[name.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
      } catch {
        ctx.addIssue({ code: "custom", message: `the value of ${name} is not percent-encoded correctly` });
      }
    }
    return headers;
  });

/** OpenTelemetry traces of image requests, dashboard procedures and cron jobs (docs/self-hosting.md, tracing). */
export const tracingSettings = group("Tracing", {
  OTEL_EXPORTER_OTLP_ENDPOINT: parsed(httpUrl, {
    defaultText: "none: no span is recorded and the SDK is never loaded",
    doc: "An OpenTelemetry collector's OTLP/HTTP base URL (such as `http://127.0.0.1:4318`): traces go to its `/v1/traces`.",
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: parsed(httpUrl, {
    doc: "The full URL traces are posted to, when it is not `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`.",
  }),
  OTEL_EXPORTER_OTLP_PROTOCOL: choice(["http/protobuf", "http/json", "grpc"], {
    default: "http/protobuf",
    doc: "The OTLP encoding the collector is sent. `grpc` is not spoken: with it no trace is sent (a warning says so), so a machine-wide setting meant for other services does not stop this one.",
  }),
  OTEL_EXPORTER_OTLP_HEADERS: parsed(headerList, {
    defaultText: "none",
    doc: "Headers sent with every export, as `name=value` pairs separated by commas (an API key of a hosted collector).",
    secret: true,
  }),
  OTEL_SERVICE_NAME: textWithDefault({ default: "optstuff", doc: "The `service.name` the traces carry." }),
});

export type TracingValues = ValuesOf<typeof tracingSettings>;
