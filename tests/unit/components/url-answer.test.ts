import { describe, expect, it } from "vitest";
import {
  byteCount,
  classifyAnswer,
  IMAGE_ACCEPT,
  nextStep,
  requestAnswer,
  sameOriginPath,
  summarise,
  type Answer,
} from "@/components/url-tester/url-answer";

/**
 * The URL tester explains what the image route answered: it asks the page's own origin for the signed
 * URL's path, as an <img> would, and sorts the answer into an image, `info`'s JSON, the contract's
 * error body, something else, or no answer at all.
 */
const signed = "https://img.example.com/api/v1/shop/w_320,f_auto/cdn.example.com/a%20b.jpg?key=pk_x&sig=s&exp=9";

const answerOf = (body: BodyInit | null, status: number, headers: Record<string, string>, statusText = "") =>
  new Response(body, { status, headers, statusText });

async function classify(response: Response, ms = 12): Promise<Answer> {
  return classifyAnswer(response, await response.blob(), ms);
}

describe("where the tester sends its request", () => {
  it("asks this origin for the signed URL's path and query, encoding kept", () => {
    expect(sameOriginPath(signed)).toBe("/api/v1/shop/w_320,f_auto/cdn.example.com/a%20b.jpg?key=pk_x&sig=s&exp=9");
    // A public base URL with a path prefix (behind a proxy): the route is this app's /api/v1.
    expect(sameOriginPath("https://example.com/images/api/v1/p/_/local/x.png?key=k&sig=s")).toBe(
      "/api/v1/p/_/local/x.png?key=k&sig=s",
    );
    expect(sameOriginPath("https://example.com/elsewhere")).toBeNull();
    expect(sameOriginPath("not a url")).toBeNull();
  });

  it("requests it as a page's <img> would: its Accept header, no cookies, past the browser's cache, timed", async () => {
    const calls: Array<{ target: string; init: RequestInit | undefined }> = [];
    const clock = [100, 142];
    const answer = await requestAnswer(signed, {
      fetch: async (target, init) => {
        calls.push({ target: String(target), init });
        return answerOf(new Uint8Array(1234), 200, { "content-type": "image/webp", "x-request-id": "r-1" }, "OK");
      },
      now: () => clock.shift()!,
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.target).toBe(sameOriginPath(signed));
    expect(calls[0]!.init).toMatchObject({
      headers: { accept: IMAGE_ACCEPT },
      credentials: "omit",
      cache: "no-store",
    });
    expect(answer).toMatchObject({ kind: "image", status: 200, contentType: "image/webp", bytes: 1234, ms: 42 });
    expect(answer).toMatchObject({ requestId: "r-1", fallbackFor: null });
  });

  it("reports a request that never got an answer, and rejects only when a newer request aborted it", async () => {
    const failing = { fetch: () => Promise.reject(new TypeError("Failed to fetch")), now: () => 0 };
    expect(await requestAnswer(signed, failing)).toEqual({ kind: "unreachable", message: "Failed to fetch" });
    const controller = new AbortController();
    controller.abort();
    await expect(requestAnswer(signed, { ...failing, signal: controller.signal })).rejects.toThrow("Failed to fetch");
  });
});

describe("what the answer is", () => {
  it("an image, and the error a fallback image stands in for", async () => {
    const image = await classify(answerOf(new Uint8Array(10), 200, { "content-type": "image/png" }));
    expect(image).toMatchObject({ kind: "image", contentType: "image/png", bytes: 10, fallbackFor: null });
    const fallback = await classify(
      answerOf(new Uint8Array(10), 200, { "content-type": "image/png", "x-optstuff-fallback": "SOURCE_NOT_FOUND" }),
    );
    expect(fallback).toMatchObject({ kind: "image", fallbackFor: "SOURCE_NOT_FOUND" });
  });

  it("info's JSON, whatever the media type's parameters", async () => {
    const body = JSON.stringify({ width: 1600, height: 1067, format: "jpeg" });
    const info = await classify(answerOf(body, 200, { "content-type": "application/json; charset=utf-8" }));
    expect(info).toMatchObject({ kind: "json", json: { width: 1600, height: 1067, format: "jpeg" } });
  });

  it("the contract's error body: status, code, message and request id", async () => {
    const error = await classify(
      answerOf(
        JSON.stringify({ error: "Source image not found", code: "SOURCE_NOT_FOUND", requestId: "req-9" }),
        404,
        { "content-type": "application/json; charset=utf-8" },
        "Not Found",
      ),
    );
    expect(error).toMatchObject({
      kind: "error",
      status: 404,
      statusText: "Not Found",
      code: "SOURCE_NOT_FOUND",
      message: "Source image not found",
      requestId: "req-9",
    });
  });

  it("anything else as it came: a framework's text page, JSON without the error shape, an empty 204", async () => {
    const text = await classify(answerOf("Internal Server Error".repeat(30), 500, { "content-type": "text/plain" }));
    expect(text).toMatchObject({ kind: "other", status: 500, contentType: "text/plain" });
    expect((text as { excerpt: string }).excerpt).toHaveLength(300);
    const shapeless = await classify(answerOf('{"message":"nope"}', 400, { "content-type": "application/json" }));
    expect(shapeless).toMatchObject({ kind: "other", excerpt: '{"message":"nope"}' });
    const empty = await classify(answerOf(null, 204, {}));
    expect(empty).toMatchObject({ kind: "other", contentType: "", bytes: 0 });
  });
});

describe("what the tester says", () => {
  const received = {
    status: 200,
    statusText: "OK",
    contentType: "image/webp",
    bytes: 8_300,
    ms: 41.6,
    requestId: null,
  };
  const image: Answer = { ...received, kind: "image", body: new Blob([]), fallbackFor: null };

  it("an image's format, pixel size, bytes and time once the browser shows it", () => {
    expect(summarise(image, { state: "pending" })).toBe("Loading preview…");
    expect(summarise(image, { state: "shown", width: 320, height: 213 })).toBe(
      "Preview loaded. 200 OK: image/webp, 320 × 213 px, 8.1 KiB in 42 ms.",
    );
    expect(summarise({ ...image, fallbackFor: "SOURCE_FAILED" }, { state: "shown", width: 1, height: 1 })).toMatch(
      /fallback image, standing in for SOURCE_FAILED\.$/,
    );
    expect(summarise(image, { state: "undecodable" })).toBe(
      "The server answered 200 OK with image/webp (8.1 KiB in 42 ms), but this browser cannot display it.",
    );
  });

  it("bytes exactly, and in binary units once there are more than a thousand", () => {
    expect(byteCount(207)).toBe("207 bytes");
    expect(byteCount(2_416)).toBe("2,416 bytes (2.4 KiB)");
  });

  it("a refusal's status, code and message; info's JSON; a request that got no answer", () => {
    const refusal: Answer = {
      ...received,
      status: 400,
      statusText: "",
      contentType: "application/json",
      kind: "error",
      code: "INVALID_OPERATION",
      message: 'Unknown preset "nope"',
    };
    expect(summarise(refusal, { state: "pending" })).toBe(
      'The server refused the URL: 400, INVALID_OPERATION: Unknown preset "nope"',
    );
    expect(
      summarise({ ...received, contentType: "application/json", kind: "json", json: {} }, { state: "pending" }),
    ).toBe("The server answered 200 OK with JSON (8.1 KiB in 42 ms).");
    expect(summarise({ kind: "unreachable", message: "Failed to fetch" }, { state: "pending" })).toMatch(
      /^The request did not reach the server \(Failed to fetch\)/,
    );
  });

  it("where to look after the 403 that says nothing on purpose, and that the tester's Referer may be the cause", () => {
    const forbidden: Answer = { ...received, status: 403, kind: "error", code: "FORBIDDEN", message: "Forbidden" };
    expect(nextStep(forbidden, { hasRefererList: false })).toMatch(/request log on the Usage tab/);
    expect(nextStep(forbidden, { hasRefererList: false })).not.toMatch(/Referer/);
    expect(nextStep(forbidden, { hasRefererList: true })).toMatch(/referer allowlist.*this dashboard's address/);
    expect(nextStep({ ...forbidden, code: "SOURCE_NOT_FOUND" }, { hasRefererList: true })).toBeNull();
    expect(nextStep(image, { hasRefererList: true })).toBeNull();
  });
});
