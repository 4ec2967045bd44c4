import { context, SpanStatusCode, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";

/**
 * Spans around the steps an operator wants to see (docs/self-hosting.md, tracing). Until tracing starts
 * (start-tracing.ts, only with an OTLP endpoint set) every helper calls straight through: no span
 * object, no context switch. The flag lives on globalThis because Next bundles the instrumentation
 * hook apart from each route.
 */
const TRACING = Symbol.for("optstuff.tracing");
type Registry = typeof globalThis & { [TRACING]?: TracingHandle };

/** What start-tracing.ts leaves behind: the provider's way out, which flushes the spans still queued. */
export interface TracingHandle {
  shutdown(): Promise<void>;
}

export function tracingStarted(): boolean {
  return (globalThis as Registry)[TRACING] !== undefined;
}

export function setTracingHandle(handle: TracingHandle | undefined): void {
  (globalThis as Registry)[TRACING] = handle;
}

/** Sends what is queued and stops, within `budgetMs` (a stopping server does not wait on a dead collector). */
export async function stopTracing(budgetMs = 3000): Promise<void> {
  const handle = (globalThis as Registry)[TRACING];
  if (!handle) return;
  setTracingHandle(undefined);
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<void>((resolve) => (timer = setTimeout(resolve, budgetMs)));
  await Promise.race([handle.shutdown().catch(() => undefined), budget]);
  clearTimeout(timer);
}

/** Read at each span: a tracer taken before the provider was registered would stay a no-op. */
const tracer = () => trace.getTracer("optstuff");

/** Runs `work` inside a span named `name`: a thrown error marks it failed with the error's code. */
export async function traced<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!tracingStarted()) return work(null);
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A step already over, recorded from its performance.now() bounds (a wait inside another call). */
export function recordSpan(name: string, startMs: number, endMs: number, attributes: Attributes = {}): void {
  if (!tracingStarted()) return;
  tracer()
    .startSpan(name, { attributes, startTime: epoch(startMs) })
    .end(epoch(endMs));
}

/** Marks a span failed, with the error's catalogue code when it has one (never its message's details). */
export function failed(span: Span, error: unknown): void {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "INTERNAL";
  span.setAttribute("error.type", code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

/** The active context, to run later work (the request log after the answer) under the same span. */
export function currentContext(): Context | null {
  return tracingStarted() ? context.active() : null;
}

export function withinContext<T>(saved: Context | null, work: () => T): T {
  return saved ? context.with(saved, work) : work();
}

function epoch(performanceMs: number): number {
  return performance.timeOrigin + performanceMs;
}
