/** Next calls this once when the server starts: configuration problems stop it here, not on a request. */
export async function register(): Promise<void> {
  // The literal `process.env.NEXT_RUNTIME` comparison is what lets Next drop the Node-only import from
  // its edge bundle; reading it through src/env.ts would defeat that, hence the lint exception.
  // eslint-disable-next-line no-restricted-syntax
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServer } = await import("./server/startup");
  await startServer();
  // After the environment was checked; before the first request, which Next holds until this returns.
  const { env } = await import("./env");
  const { startTracingIfConfigured } = await import("./server/telemetry/configured");
  const tracing = await startTracingIfConfigured(env());
  // Traced, an image request keeps Next's span for it (its route and timing) as the root of its trace.
  if (tracing) return;
  const { publishImageApi } = await import("./server/http/published-image-api");
  publishImageApi();
}
