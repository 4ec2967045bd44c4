import { describe, expect, it, vi } from "vitest";
import { parseEnv } from "@/env";
import { tracesUrl, startTracingIfConfigured } from "@/server/telemetry/configured";
import { redactAttributes, redactText, redactUrl } from "@/server/telemetry/redact";
import { recordSpan, traced, tracingStarted } from "@/server/telemetry/spans";

describe("tracing settings", () => {
  it("posts to the base URL's /v1/traces, or to the traces URL as given", () => {
    expect(tracesUrl(parseEnv({}))).toBeNull();
    expect(tracesUrl(parseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/" }))).toBe(
      "http://127.0.0.1:4318/v1/traces",
    );
    expect(
      tracesUrl(
        parseEnv({
          OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://collector.example/otlp/traces",
        }),
      ),
    ).toBe("https://collector.example/otlp/traces");
  });

  it("refuses an endpoint that is not an http(s) URL, and a protocol it does not speak", () => {
    expect(() => parseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => parseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://collector" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(() => parseEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "udp" })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
  });

  it("reads the collector's headers as percent-encoded name=value pairs, and refuses others without echoing them", () => {
    expect(parseEnv({ OTEL_EXPORTER_OTLP_HEADERS: "Api-Key=s3cr%20t, x-team=a=b" }).OTEL_EXPORTER_OTLP_HEADERS).toEqual(
      {
        "api-key": "s3cr t",
        "x-team": "a=b",
      },
    );
    expect(parseEnv({}).OTEL_EXPORTER_OTLP_HEADERS).toEqual({});
    const refuse = () => parseEnv({ OTEL_EXPORTER_OTLP_HEADERS: "tokenWithoutName-9f8e7d" });
    expect(refuse).toThrow(/OTEL_EXPORTER_OTLP_HEADERS/);
    expect(refuse).not.toThrow(/9f8e7d/);
    expect(() => parseEnv({ OTEL_EXPORTER_OTLP_HEADERS: "k=%E0%A4%A" })).toThrow(/OTEL_EXPORTER_OTLP_HEADERS/);
  });
});

describe("with gRPC asked for", () => {
  it("sends nothing and starts anyway, saying why in the log", async () => {
    const written = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      await startTracingIfConfigured(
        parseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
      );
      const lines = written.mock.calls.map(([line]) => JSON.parse(String(line)) as { level: string; message: string });
      expect(lines).toEqual([expect.objectContaining({ level: "warn", message: expect.stringContaining("grpc") })]);
    } finally {
      written.mockRestore();
    }
    expect(tracingStarted()).toBe(false);
  });
});

describe("without an endpoint", () => {
  it("starts nothing, and every helper calls straight through", async () => {
    await startTracingIfConfigured(parseEnv({}));
    expect(tracingStarted()).toBe(false);
    expect(await traced("x", {}, async (span) => span)).toBeNull();
    await expect(traced("x", {}, () => Promise.reject(new Error("kept")))).rejects.toThrow("kept");
    expect(() => recordSpan("x", 0, 1)).not.toThrow();
  });
});

describe("redaction", () => {
  it("keeps of a URL attribute only the path's shape: project and operations, never the source, a token or a query", () => {
    const presigned = "local%2Fa.png";
    expect(redactUrl(`/api/v1/blog/w_100,f_webp/${presigned}?key=pk_abc&sig=Zm9v`)).toBe(
      "/api/v1/blog/w_100,f_webp/[source]?[redacted]",
    );
    expect(redactUrl("/api/v1/blog/_/https%3A/b.s3.example/o.jpg%3FX-Amz-Signature%3Ddead")).toBe(
      "/api/v1/blog/_/[source]",
    );
    expect(redactUrl("/invite/tok_123456")).toBe("/invite/[token]");
    expect(redactUrl("/api/auth/callback/github?code=abc&state=def")).toBe("/api/auth/callback/github?[redacted]");
    expect(redactUrl("/api/trpc/account.invitation?batch=1&input=%7B%22token%22%3A%22t%22%7D")).toBe(
      "/api/trpc/account.invitation?[redacted]",
    );
    expect(redactUrl("https://img.example.com/api/v1/p/w_1/x?%73ig=1")).toBe(
      "https://img.example.com/api/v1/p/w_1/[source]?[redacted]",
    );
    expect(redactUrl("/api/health")).toBe("/api/health");
    const attributes = { "http.target": "/invite/abc?x=1", "url.query": "sig=1", "http.method": "GET", n: 1 };
    redactAttributes(attributes);
    expect(attributes).toEqual({
      "http.target": "/invite/[token]?[redacted]",
      "url.query": "[redacted]",
      "http.method": "GET",
      n: 1,
    });
  });

  it("hides the signature, the key and presigned credentials in a URL, and nothing else", () => {
    expect(redactText("/api/v1/blog/w_100/local%2Fa.png?key=pk_abc&sig=Zm9vYmFy&exp=9")).toBe(
      "/api/v1/blog/w_100/local%2Fa.png?key=[redacted]&sig=[redacted]&exp=9",
    );
    expect(redactText("https://b.s3.example/o.jpg?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=deadbeef")).toBe(
      "https://b.s3.example/o.jpg?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]",
    );
    expect(redactText("GET /api/image-delivery")).toBe("GET /api/image-delivery");
    expect(redactText("/a?monkey=1")).toBe("/a?monkey=1");
  });
});
