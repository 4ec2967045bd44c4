import http from "node:http";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapProject, startServedApp, type ServedApp } from "../support/browser";
import { clearOfWindowEdge } from "../support/clock";
import { signedFor } from "../support/signed-url";

/**
 * The dashboard's auth surface on the built app as `npm start` serves it (no Chromium: what a client
 * can send by hand). Needs `npm run build` first. Under a plain `next start` the spoofing case fails:
 * there the client's X-Forwarded-For is all the app sees.
 */
let app: ServedApp;
let vars: Record<string, string> = {};
beforeAll(async () => {
  app = await startServedApp({}, (dataDir) => {
    vars = bootstrapProject(dataDir);
  });
});
afterAll(() => app?.stop());

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Request body bytes written before the answer came. */
  written: number;
  /** Whether the whole body had been sent when the answer came. */
  ended: boolean;
}

/**
 * POSTs `total` bytes in 64 KB chunks, declared with Content-Length or chunked, and stops sending as
 * soon as an answer arrives (the server may close the connection before the body is through). With
 * `holdAfter`, it stops sending after that many bytes without ending the body and waits: a server that
 * needs the whole body never answers, and one that answers at its cap is not raced by writes landing
 * on the socket it closed (whose reset can discard the 413 before it is read).
 */
function postRaw(
  path: string,
  headers: Record<string, string>,
  total: number,
  declared: boolean,
  holdAfter = Infinity,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const request = http.request(`${app.baseUrl}${path}`, {
      method: "POST",
      headers: {
        ...headers,
        origin: app.baseUrl,
        ...(declared ? { "content-length": String(total) } : { "transfer-encoding": "chunked" }),
      },
    });
    request.on("response", (response) => {
      answered = true;
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        resolve({ status: response.statusCode!, headers: response.headers, body, written, ended: written >= total });
        request.destroy();
      });
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    // Headers first, and a moment for an answer that needs no body (a declared length over the cap).
    request.flushHeaders();
    const chunk = Buffer.alloc(64 * 1024, 0x7b);
    // One chunk every few milliseconds, as a browser's upload goes: the 413 is read as soon as it
    // arrives, instead of after a burst of queued writes meets the closed socket (EPIPE) first (one turn
    // of the event loop between chunks still lost that race three times in a row on a loaded CI).
    const pump = () => {
      if (answered) return;
      if (written >= total) return void request.end();
      if (written >= holdAfter) return;
      written += chunk.byteLength;
      if (request.write(chunk)) setTimeout(pump, 5);
      else request.once("drain", pump);
    };
    setTimeout(pump, 100);
  });
}

/**
 * The server answers 413 and closes while the client may still be uploading: a write can then meet the
 * closed socket (EPIPE, ECONNRESET) before the answer is read. That is the transport, not the server's
 * answer: try again (at most eight times: on a loaded machine three in a row met it); any answer
 * received is returned and checked.
 */
async function postUntilAnswered(post: () => Promise<RawAnswer>): Promise<RawAnswer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await post();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt >= 8 || (code !== "EPIPE" && code !== "ECONNRESET")) throw error;
    }
  }
}

async function residentBytes(): Promise<number> {
  const metrics = await (await app.metrics()).text();
  return Number(/^process_resident_memory_bytes (\d+)/m.exec(metrics)?.[1]);
}

describe("the served dashboard", () => {
  it("forbids framing its pages, and leaves the image API's headers as the contract has them", async () => {
    for (const page of ["/sign-in", "/sign-up"]) {
      const response = await fetch(`${app.baseUrl}${page}`, { redirect: "manual" });
      expect(response.headers.get("content-security-policy"), page).toBe("frame-ancestors 'none'");
      expect(response.headers.get("x-frame-options"), page).toBe("DENY");
    }
    const image = await fetch(signedFor(app.baseUrl, vars, "w_40,f_png", "local/photo.jpg"));
    expect(image.status).toBe(200);
    expect(image.headers.get("x-frame-options")).toBeNull();
    expect(image.headers.get("content-security-policy")).toBeNull();
  });

  it("counts sign-in attempts against the socket's address, whatever X-Forwarded-For claims", async () => {
    await clearOfWindowEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const response = await fetch(`${app.baseUrl}/api/auth/sign-in/email`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: app.baseUrl,
          "x-forwarded-for": `198.51.100.${i + 1}`,
          "x-optstuff-peer-address": `198.51.100.${i + 1}`,
        },
        body: JSON.stringify({
          email: `nobody-${randomBytes(4).toString("hex")}@example.com`,
          password: "whatever-password",
        }),
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
  });

  it("refuses a 64 MB sign-in post by its declared length, before reading it, and keeps its memory", async () => {
    const before = await residentBytes();
    const answer = await postRaw(
      "/api/auth/sign-in/email",
      { "content-type": "application/json" },
      64 * 1024 * 1024,
      true,
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "BODY_TOO_LARGE" });
    expect(answer.written).toBeLessThan(64 * 1024 * 1024);
    expect(await residentBytes()).toBeLessThan(before + 32 * 1024 * 1024);
  });

  it.each([
    ["/api/auth/sign-in/email", "auth"],
    ["/api/trpc/account.completeOnboarding", "tRPC"],
    ["/api/cron/flush-usage-buffer", "cron"],
  ])("stops reading a chunked post to %s (%s) at its cap, with 413", async (path) => {
    // Held at 2 MB, past every cap (the largest is tRPC's 1 MB): the answer must come mid-body.
    const answer = await postUntilAnswered(() =>
      postRaw(path, { "content-type": "application/json" }, 8 * 1024 * 1024, false, 2 * 1024 * 1024),
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "BODY_TOO_LARGE" });
    expect(answer.ended).toBe(false);
  });

  it("answers a multipart post to tRPC with 415, not a 500", async () => {
    const form = new FormData();
    form.set("name", "Team");
    const response = await fetch(`${app.baseUrl}/api/trpc/account.completeOnboarding`, {
      method: "POST",
      headers: { origin: app.baseUrl },
      body: form,
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { code: string }).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("refuses a dashboard mutation posted from another site's page, before reading its body", async () => {
    const response = await fetch(`${app.baseUrl}/api/trpc/account.completeOnboarding`, {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
      body: JSON.stringify({ json: { name: "Team", slug: "cross-site" } }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe("CROSS_SITE_REQUEST");
  });

  it("answers /api/metrics only with the token generated into the data directory", async () => {
    // The embedded default on loopback: a reverse proxy in front would hand an open endpoint to anyone.
    const refusals: Array<Record<string, string>> = [{}, { authorization: "Bearer guessed" }];
    for (const headers of refusals) {
      const refused = await fetch(`${app.baseUrl}/api/metrics`, { headers });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe("Bearer");
      expect(((await refused.json()) as { code: string }).code).toBe("METRICS_UNAUTHORIZED");
    }
    const scraped = await app.metrics();
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("process_resident_memory_bytes");
  });

  it("still answers after all of the above", async () => {
    expect((await fetch(`${app.baseUrl}/api/health`)).status).toBe(200);
  });
});
