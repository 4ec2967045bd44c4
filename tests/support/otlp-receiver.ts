import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** One span as an OTLP/HTTP JSON export carries it, flattened. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  scope: string;
  status: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
}
type KeyValues = Array<{ key: string; value: AnyValue }>;
interface ExportRequest {
  resourceSpans: Array<{
    resource?: { attributes?: KeyValues };
    scopeSpans: Array<{
      scope?: { name?: string };
      spans: Array<{
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        status?: { code?: number };
        attributes?: KeyValues;
      }>;
    }>;
  }>;
}

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return value.arrayValue?.values.map(plain);
}

const record = (pairs: KeyValues = []) => Object.fromEntries(pairs.map(({ key, value }) => [key, plain(value)]));

/**
 * An OpenTelemetry collector's OTLP/HTTP endpoint on loopback: what the server exports in JSON is
 * decoded as a collector would, with the request's headers and raw bodies kept for checks.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const headers: IncomingMessage["headers"][] = [];
  const protobuf: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const bytes = req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
      const body = bytes.toString("utf8");
      if (req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      // Protobuf is kept undecoded (no request decoder ships with the SDK): its strings are plain UTF-8.
      if (req.headers["content-type"] === "application/x-protobuf") {
        protobuf.push(bytes);
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
        return;
      }
      if (!String(req.headers["content-type"]).startsWith("application/json")) {
        res.writeHead(415).end();
        return;
      }
      headers.push(req.headers);
      bodies.push(body);
      for (const resourceSpans of (JSON.parse(body) as ExportRequest).resourceSpans)
        for (const scopeSpans of resourceSpans.scopeSpans)
          for (const span of scopeSpans.spans)
            spans.push({
              name: span.name,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              scope: scopeSpans.scope?.name ?? "",
              status: span.status?.code ?? 0,
              attributes: record(span.attributes),
              resource: record(resourceSpans.resource?.attributes),
            });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    headers,
    protobuf,
    /** Resolves once a span satisfying `found` has arrived. */
    async waitFor(found: (span: ReceivedSpan) => boolean, timeoutMs = 15_000): Promise<ReceivedSpan> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const span = spans.find(found);
        if (span) return span;
        if (Date.now() > until) throw new Error(`no such span among ${spans.map((s) => s.name).join(", ")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close(): Promise<void> {
      // The exporter keeps its connection alive: close() alone would wait for it.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The spans of one trace below (and including) `root`, by name. */
export function descendants(spans: readonly ReceivedSpan[], root: ReceivedSpan): ReceivedSpan[] {
  const below = new Set([root.spanId]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const span of spans)
      if (span.parentSpanId && below.has(span.parentSpanId) && !below.has(span.spanId)) {
        below.add(span.spanId);
        grew = true;
      }
  }
  return spans.filter((span) => below.has(span.spanId));
}
