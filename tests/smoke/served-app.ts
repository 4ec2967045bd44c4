/**
 * Smoke test of the built app under `next start` (run by .ci/run): a signed demo image is served,
 * decoded and checked; conditional and HEAD requests and a bad signature behave as the contract says.
 * Usage: tsx tests/smoke/served-app.ts <baseUrl> <credentials env file>
 */
import { readFileSync } from "node:fs";
import sharp from "sharp";
import { buildSignedUrl } from "../support/signed-url";

const [baseUrl, envFile] = process.argv.slice(2) as [string, string];
const vars = Object.fromEntries(
  readFileSync(envFile, "utf8")
    .split("\n")
    .map((l) => l.split("=", 2))
    .filter((p) => p.length === 2),
);

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`smoke: ${message}`);
}

async function main(): Promise<void> {
  const key = { publicKey: vars.OPTSTUFF_PUBLIC_KEY!, secretKey: vars.OPTSTUFF_SECRET_KEY! };
  const url = buildSignedUrl({
    baseUrl,
    projectSlug: vars.OPTSTUFF_PROJECT_SLUG!,
    ...key,
    operations: "w_320,f_webp",
    source: "local/photo.jpg",
  });

  const health = await fetch(`${baseUrl}/api/health`);
  check(health.status === 200, `health answered ${health.status}`);

  const image = await fetch(url);
  const body = Buffer.from(await image.arrayBuffer());
  check(image.status === 200, `image answered ${image.status}: ${body.toString().slice(0, 200)}`);
  check(image.headers.get("content-type") === "image/webp", `content-type ${image.headers.get("content-type")}`);
  const meta = await sharp(body).metadata();
  check(meta.format === "webp" && meta.width === 320, `decoded ${meta.format} ${meta.width}x${meta.height}`);
  check(image.headers.get("cache-control")?.includes("immutable"), "not immutable");
  check(image.headers.get("x-request-id"), "no request id");

  const etag = image.headers.get("etag");
  check(etag, "no ETag");
  const revalidated = await fetch(url, { headers: { "If-None-Match": etag } });
  check(revalidated.status === 304, `conditional answered ${revalidated.status}`);

  const head = await fetch(url, { method: "HEAD" });
  check(head.status === 200 && (await head.arrayBuffer()).byteLength === 0, "HEAD must answer 200 without a body");

  const forged = await fetch(url.replace(/sig=[^&]+/, `sig=${"A".repeat(32)}`));
  const error = (await forged.json()) as { code?: string; requestId?: string };
  check(
    forged.status === 403 && error.code === "FORBIDDEN" && error.requestId,
    `forged signature answered ${forged.status}`,
  );
  check(forged.headers.get("cache-control") === "no-store", "errors must not be cached");
  console.log(`smoke: ok (${body.length} bytes of webp at ${meta.width}x${meta.height})`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
