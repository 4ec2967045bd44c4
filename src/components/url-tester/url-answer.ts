import { formatBytes, formatCount, formatMs } from "@/lib/format";

/**
 * What the image route answered to a signed URL, as the URL tester shows it. The image API sends no
 * CORS headers, so the tester asks this app's own origin for the signed URL's path and query (the
 * same route) and previews the bytes it read, instead of letting an <img> ask a second time and learn
 * nothing but "it failed".
 */
export type Answer =
  | (Received & { kind: "image"; body: Blob; fallbackFor: string | null })
  /** `info`: JSON about the source, answered 200. */
  | (Received & { kind: "json"; json: unknown })
  /** The route's JSON error body (docs/errors.md). */
  | (Received & { kind: "error"; code: string; message: string })
  /** Anything else (a proxy's page, a framework error): shown as it came, never guessed at. */
  | (Received & { kind: "other"; excerpt: string })
  | { kind: "unreachable"; message: string };

interface Received {
  status: number;
  statusText: string;
  /** Media type without parameters; "" when the answer names none. */
  contentType: string;
  bytes: number;
  ms: number;
  requestId: string | null;
}

/**
 * The Accept header Chromium sends for an <img>: `f_auto` and `f_best` negotiate on it, so the tester
 * gets the format a page's image would, not the one a bare fetch (which accepts anything) would.
 */
export const IMAGE_ACCEPT = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";

/** The route's header naming the error a fallback image stands in for (docs/url-format.md). */
const FALLBACK_HEADER = "x-optstuff-fallback";

/**
 * The signed URL's path and query, to be requested on the page's own origin: the dashboard and the
 * image API are one app, and a public base URL on another host (a CDN) would refuse a cross-origin
 * read. Null when the URL has no image route path.
 */
export function sameOriginPath(signedUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(signedUrl);
  } catch {
    return null;
  }
  const at = url.pathname.indexOf("/api/v1/");
  return at === -1 ? null : `${url.pathname.slice(at)}${url.search}`;
}

export interface RequestDeps {
  fetch: typeof fetch;
  now: () => number;
  signal?: AbortSignal;
}

/**
 * Requests the signed URL as an <img> on a page would (its Accept header, no cookies), reads the whole
 * body and times it. Never throws for the server's answer or a network failure: both are results to
 * show. Only an abort (a newer request replaced this one) rejects.
 */
export async function requestAnswer(signedUrl: string, deps: RequestDeps): Promise<Answer> {
  const target = sameOriginPath(signedUrl) ?? signedUrl;
  const started = deps.now();
  let response: Response;
  let body: Blob;
  try {
    response = await deps.fetch(target, {
      headers: { accept: IMAGE_ACCEPT },
      credentials: "omit",
      // Each try asks the server: a cached answer would show the browser's cache, not the route.
      cache: "no-store",
      signal: deps.signal,
    });
    body = await response.blob();
  } catch (error) {
    if (deps.signal?.aborted) throw error;
    return { kind: "unreachable", message: error instanceof Error ? error.message : String(error) };
  }
  return classifyAnswer(response, body, deps.now() - started);
}

/** Sorts a received answer by what it is: the contract's error body, `info`'s JSON, an image, or other. */
export async function classifyAnswer(response: Response, body: Blob, ms: number): Promise<Answer> {
  const contentType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const received: Received = {
    status: response.status,
    statusText: response.statusText,
    contentType,
    bytes: body.size,
    ms,
    requestId: response.headers.get("x-request-id"),
  };
  const ok = response.status >= 200 && response.status < 300;
  if (ok && contentType.startsWith("image/"))
    return { ...received, kind: "image", body, fallbackFor: response.headers.get(FALLBACK_HEADER) };
  const text = await body.text();
  const json = contentType === "application/json" ? parseJson(text) : undefined;
  if (ok && json !== undefined) return { ...received, kind: "json", json };
  if (!ok && isErrorBody(json)) {
    const requestId = received.requestId ?? (typeof json.requestId === "string" ? json.requestId : null);
    return { ...received, requestId, kind: "error", code: json.code, message: json.error };
  }
  return { ...received, kind: "other", excerpt: text.slice(0, 300) };
}

/** Whether the browser could show the image it was given. */
export type Preview =
  { state: "pending" } | { state: "shown"; width: number; height: number } | { state: "undecodable" };

/**
 * One sentence for the tester's live region, so a screen reader hears the outcome and the numbers
 * that matter: what the server said, and for an image its format, pixel size, bytes and time.
 */
export function summarise(answer: Answer, preview: Preview): string {
  if (answer.kind === "unreachable")
    return `The request did not reach the server (${answer.message}): check your connection and that the server is running, then sign again.`;
  const status = statusLine(answer);
  const cost = `${formatBytes(answer.bytes)} in ${formatMs(answer.ms)}`;
  switch (answer.kind) {
    case "image": {
      const fallback = answer.fallbackFor
        ? ` This is the project's fallback image, standing in for ${answer.fallbackFor}.`
        : "";
      if (preview.state === "pending") return "Loading preview…";
      if (preview.state === "undecodable")
        return `The server answered ${status} with ${answer.contentType} (${cost}), but this browser cannot display it.${fallback}`;
      return `Preview loaded. ${status}: ${answer.contentType}, ${pixelSize(preview)}, ${cost}.${fallback}`;
    }
    case "json":
      return `The server answered ${status} with JSON (${cost}).`;
    case "error":
      return `The server refused the URL: ${status}, ${answer.code}: ${answer.message}`;
    case "other":
      return `The server answered ${status} with ${answer.contentType || "no content type"} (${cost}), which is not an answer of the image API.`;
  }
}

/**
 * What to do next, for the one refusal whose message says nothing on purpose: the route answers every
 * policy refusal with the same 403 (docs/errors.md), and only the request log keeps the cause.
 */
export function nextStep(answer: Answer, project: { hasRefererList: boolean }): string | null {
  if (answer.kind !== "error" || answer.code !== "FORBIDDEN") return null;
  const referer = project.hasRefererList
    ? " This project has a referer allowlist, and the tester's request carries this dashboard's address as its Referer."
    : "";
  return `A refused referer, a source address that is private or reserved, and a local/ source on a server without a local folder all answer this 403; the request log on the Usage tab names the cause.${referer}`;
}

export const statusLine = (answer: Received) =>
  answer.statusText ? `${answer.status} ${answer.statusText}` : String(answer.status);

export const pixelSize = ({ width, height }: { width: number; height: number }) =>
  `${formatCount(width)} × ${formatCount(height)} px`;

export const byteCount = (bytes: number) =>
  bytes < 1024 ? `${formatCount(bytes)} bytes` : `${formatCount(bytes)} bytes (${formatBytes(bytes)})`;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isErrorBody(value: unknown): value is { error: string; code: string; requestId?: unknown } {
  if (typeof value !== "object" || value === null) return false;
  const body = value as Record<string, unknown>;
  return typeof body.error === "string" && typeof body.code === "string";
}
