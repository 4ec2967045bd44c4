/**
 * npm run smoke -- <base URL> --credentials <file> [--source <source>] [--large-source <source>]
 *   [--cron-secret=<secret>]  (with "=": a generated secret may begin with "-")
 *
 * After a deploy: what a client of the deployment gets, checked from outside. The credentials file is
 * what `optstuff bootstrap --credentials-file` (or the quickstart's quickstart.env) writes: the project
 * slug and a key pair. The source must be one the project allows (default `local/photo.jpg`, the
 * embedded default's demo image; on Vercel a remote image of yours). The large source is one whose
 * full-size PNG passes Vercel's 4.5 MB response cap (a photo of 12 megapixels or more), for the check
 * that such an output arrives whole; without one, that check runs on the source and warns when its
 * output stays under the cap, since the way past the cap was then not taken. Each check prints one
 * line (`ok`, `WARN` or `FAIL`); the exit code is the number of failed checks (0: none failed).
 * Nothing is changed on the deployment: the sign-up check posts a form that is refused for its
 * password, never an account.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { signUrl } from "@optstuff/client";
import sharp from "sharp";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    credentials: { type: "string" },
    source: { type: "string", default: "local/photo.jpg" },
    "large-source": { type: "string" },
    "cron-secret": { type: "string" },
  },
});
const baseUrl = positionals[0]?.replace(/\/+$/, "");
if (!baseUrl || !values.credentials) {
  console.error(
    "usage: npm run smoke -- <base URL> --credentials <file> [--source <source>] [--large-source <source>] [--cron-secret=<secret>]",
  );
  process.exit(2);
}
const vars = Object.fromEntries(
  [
    ...readFileSync(values.credentials, "utf8").matchAll(/^(?:export\s+)?(OPTSTUFF_[A-Z_]+)=["']?([^"'\n]*)["']?$/gm),
  ].map((m) => [m[1]!, m[2]!]),
);
const keys = {
  baseUrl,
  projectSlug: vars.OPTSTUFF_PROJECT_SLUG ?? "",
  publicKey: vars.OPTSTUFF_PUBLIC_KEY ?? "",
  secretKey: vars.OPTSTUFF_SECRET_KEY ?? "",
};
const source = values.source;
/** Vercel answers at most 4.5 MB from a function that does not stream. */
const PLATFORM_CAP = 4.5 * 1024 * 1024;

let failed = 0;
let warned = 0;
/** A check that passed without checking what it is for: printed, not counted as failed. */
class Warning {
  constructor(readonly message: string) {}
}
async function check(name: string, run: () => Promise<string | Warning>): Promise<void> {
  try {
    const outcome = await run();
    if (outcome instanceof Warning) {
      warned++;
      console.log(`WARN  ${name}: ${outcome.message}`);
    } else {
      console.log(`ok    ${name}: ${outcome}`);
    }
  } catch (error) {
    failed++;
    console.log(`FAIL  ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}
const image = (operations: string) => signUrl({ ...keys, operations, source });

await check("health", async () => {
  const response = await fetch(`${baseUrl}/api/health`);
  const report = (await response.json()) as { status: string; mode?: string };
  expect(response.status === 200 && report.status === "ok", `${response.status} ${JSON.stringify(report)}`);
  return `ok, mode ${report.mode ?? "unknown"}`;
});

await check("a signed URL, twice", async () => {
  const url = await image("w_320,f_webp");
  const first = await fetch(url);
  const body = Buffer.from(await first.arrayBuffer());
  expect(first.status === 200, `${first.status}: ${body.toString().slice(0, 200)}`);
  const meta = await sharp(body).metadata();
  expect(meta.format === "webp" && meta.width === 320, `decoded ${meta.format} ${meta.width}`);
  expect(first.headers.get("content-type") === "image/webp", `Content-Type ${first.headers.get("content-type")}`);
  const caching = first.headers.get("cache-control");
  // Vercel's CDN takes s-maxage out of what it passes on; the rest reaches the browser.
  expect(caching?.includes("public") && caching.includes("immutable"), `Cache-Control ${caching}`);
  expect(first.headers.get("x-request-id"), "no X-Request-Id");
  const second = await fetch(url);
  const again = Buffer.from(await second.arrayBuffer());
  expect(second.status === 200 && again.equals(body), "the second answer differs");
  expect(second.headers.get("etag") === first.headers.get("etag"), "the ETag changed");
  const revalidated = await fetch(url, { headers: { "if-none-match": first.headers.get("etag") ?? "" } });
  expect(revalidated.status === 304, `If-None-Match answered ${revalidated.status}`);
  return `${body.length} bytes, the same twice, 304 on revalidation`;
});

await check("f_auto follows Accept", async () => {
  const url = await image("w_200,f_auto");
  const modern = await fetch(url, { headers: { accept: "image/avif,image/webp,*/*" } });
  const plain = await fetch(url, { headers: { accept: "image/jpeg,*/*;q=0.1" } });
  await Promise.all([modern.arrayBuffer(), plain.arrayBuffer()]);
  const types = [modern.headers.get("content-type"), plain.headers.get("content-type")];
  expect(modern.status === 200 && plain.status === 200, `${modern.status}, ${plain.status}`);
  expect(types[0] !== types[1], `both answered ${types[0]}`);
  expect(modern.headers.get("vary")?.toLowerCase().includes("accept"), `Vary ${modern.headers.get("vary")}`);
  return `${types[0]} and ${types[1]}, Vary: ${modern.headers.get("vary")}`;
});

await check("a large output arrives whole", async () => {
  // Over the deployment's response cap (Vercel: 4.5 MB) the answer is a redirect to the result bucket.
  const largeSource = values["large-source"];
  const url = await signUrl({ ...keys, operations: "f_png", source: largeSource ?? source });
  const first = await fetch(url, { redirect: "manual" });
  const linked = first.status === 307 ? first.headers.get("location") : null;
  const response = linked ? (await first.arrayBuffer(), await fetch(linked)) : first;
  const body = Buffer.from(await response.arrayBuffer());
  expect(response.status === 200, `${response.status}: ${body.toString().slice(0, 200)}`);
  const declared = response.headers.get("content-length");
  expect(declared === null || Number(declared) === body.length, `Content-Length ${declared}, got ${body.length}`);
  const meta = await sharp(body).metadata();
  expect(meta.format === "png", `decoded ${meta.format}`);
  const size = `${(body.length / 1024 / 1024).toFixed(1)} MB`;
  if (linked) return `${size}, through a redirect to ${new URL(linked).origin}`;
  if (body.length > PLATFORM_CAP) return `${size}, past Vercel's 4.5 MB response cap`;
  const under = `${size}, under the 4.5 MB cap, so the way past it (the redirect to the bucket) was not taken`;
  expect(!largeSource, `${under}: --large-source must name a source whose full-size PNG passes 4.5 MB`);
  return new Warning(
    `${under}; give --large-source <a source the project allows whose full-size PNG passes 4.5 MB, a photo of 12 megapixels or more>`,
  );
});

await check("HEAD and a forged signature", async () => {
  const url = await image("w_320,f_webp");
  const head = await fetch(url, { method: "HEAD" });
  const headBody = await head.arrayBuffer();
  expect(
    head.status === 200 && headBody.byteLength === 0,
    `HEAD answered ${head.status}, ${headBody.byteLength} bytes`,
  );
  expect(Number(head.headers.get("content-length")) > 0, `HEAD's Content-Length ${head.headers.get("content-length")}`);
  const forged = await fetch(url.replace(/sig=[^&]+/, `sig=${"A".repeat(32)}`));
  const error = (await forged.json()) as { code?: string; requestId?: string };
  expect(forged.status === 403 && error.code === "FORBIDDEN", `forged signature: ${forged.status} ${error.code}`);
  expect(error.requestId === forged.headers.get("x-request-id"), "the error's requestId is not its X-Request-Id");
  expect(
    forged.headers.get("cache-control") === "no-store",
    `error Cache-Control ${forged.headers.get("cache-control")}`,
  );
  return `HEAD 200 with the length and no body; forged 403 FORBIDDEN, no-store`;
});

await check("a malformed path is the route's 400", async () => {
  const response = await fetch(`${baseUrl}/api/v1/${keys.projectSlug}/w_100/%zz.jpg?key=${keys.publicKey}&sig=x`);
  const body = await response.text();
  expect(response.status === 400, `${response.status}: ${body.slice(0, 200)}`);
  // The route's own JSON error, not a page of the platform's or the framework's.
  const code = (JSON.parse(body) as { code?: string }).code;
  expect(code === "BAD_REQUEST", `code ${code}: ${body.slice(0, 200)}`);
  expect(
    response.headers.get("cache-control") === "no-store",
    `Cache-Control ${response.headers.get("cache-control")}`,
  );
  return `400 BAD_REQUEST, no-store`;
});

await check("the cron route", async () => {
  const route = `${baseUrl}/api/cron/flush-usage-buffer`;
  const anonymous = await fetch(route);
  await anonymous.arrayBuffer();
  expect(anonymous.status === 401 || anonymous.status === 503, `without the secret: ${anonymous.status}`);
  if (!values["cron-secret"]) return `refuses a call without the secret (${anonymous.status}); --cron-secret not given`;
  const called = await fetch(route, { headers: { authorization: `Bearer ${values["cron-secret"]}` } });
  const body = await called.text();
  expect(called.status === 200, `with the secret: ${called.status} ${body.slice(0, 200)}`);
  return `401 without the secret, 200 with it`;
});

await check("sign-up on the canonical host", async () => {
  // A password too short to accept: the answer says whether the origin is the one the server expects.
  const response = await fetch(`${baseUrl}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email: `smoke-${Date.now()}@example.com`, password: "x", name: "smoke" }),
  });
  const body = await response.text();
  expect(
    !/origin/i.test(body),
    `the server refused its own origin ${baseUrl}: ${response.status} ${body.slice(0, 200)}`,
  );
  expect(response.status >= 400 && response.status < 500, `${response.status}: ${body.slice(0, 200)}`);
  return `${response.status}, refused for the form only (the origin is accepted)`;
});

const warnings = warned === 0 ? "" : `, ${warned} warning${warned === 1 ? "" : "s"} (WARN above)`;
console.log(failed === 0 ? `smoke: every check passed${warnings}` : `smoke: ${failed} check(s) failed${warnings}`);
process.exit(failed);
