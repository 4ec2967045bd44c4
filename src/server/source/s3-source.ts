import { createHash } from "node:crypto";
import { IncomingMessage } from "node:http";
import { GetObjectCommand, S3Client, S3ServiceException, type GetObjectCommandOutput } from "@aws-sdk/client-s3";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { AppError, isAppError } from "@/server/errors";
import { S3_COMPATIBLE } from "@/server/s3-compat";
import { defaultNet } from "./default-net";
import { startBudget } from "./fetch-budget";
import { readCappedBody } from "./read-response";
import { assertBucketEndpoint, createGuardedAgents } from "./s3-agent";
import type { BucketSettings, FetchLimits, FetchedSource, FetchOptions, NetDeps } from "./types";

export interface S3SourceDeps {
  limits: FetchLimits;
  /** Network seams for the address check (tests inject recorders). Default: real DNS and TCP. */
  net?: NetDeps;
}

export interface BucketReadOptions {
  signal?: AbortSignal;
  conditional?: FetchOptions["conditional"];
}

export interface BucketReader {
  read(bucket: BucketSettings, key: string, options?: BucketReadOptions): Promise<FetchedSource>;
  /** Closes every pooled connection. */
  close(): void;
}

/** Distinct bucket configurations whose client is kept; the least recently used one goes first. */
const MAX_CLIENTS = 64;
/** S3's own limit on a key, in UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;

/**
 * Why the bucket refused, for the request log: the integrator reads these to fix their settings.
 * Built from the error's name only, never from its text or the settings, so no key material leaks.
 */
const refusals = {
  NoSuchBucket: "no such bucket: check the bucket name and the endpoint",
  InvalidAccessKeyId: "the bucket refused the credentials: unknown access key id",
  SignatureDoesNotMatch: "the bucket refused the credentials: the secret access key does not match",
  AccessDenied:
    "the bucket refused access: check the key's read permission (without s3:ListBucket, a missing object also answers 403)",
  AuthorizationHeaderMalformed: "the bucket refused the request: check the region",
  PermanentRedirect: "the bucket lives at another endpoint or region",
  InvalidObjectState: "the object is archived and must be restored before it can be read",
} satisfies Record<string, string>;

/**
 * Reads single objects from tenant-configured buckets under the same byte and time limits as HTTP
 * sources. Every connection goes through the SSRF address check (s3-agent.ts); one S3Client is kept
 * per distinct configuration.
 */
export function createBucketReader(deps: S3SourceDeps): BucketReader {
  const agents = createGuardedAgents({
    net: deps.net ?? defaultNet,
    allowLoopback: deps.limits.allowLoopback,
    connectTimeoutMs: deps.limits.timeoutMs,
  });
  const clients = new Map<string, S3Client>();

  function clientFor(settings: BucketSettings): S3Client {
    const id = createHash("sha256")
      .update(
        JSON.stringify([
          settings.endpoint,
          settings.region,
          settings.forcePathStyle,
          settings.accessKeyId,
          settings.secretAccessKey,
        ]),
      )
      .digest("base64url");
    let client = clients.get(id);
    if (client) clients.delete(id);
    client ??= new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      // Always explicit: the SDK's default chain would fall back to the server's own credentials
      // (environment, instance metadata), which a tenant's bucket must never be read with.
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      requestHandler: new NodeHttpHandler({ httpAgent: agents.httpAgent, httpsAgent: agents.httpsAgent }),
      // The budget covers one attempt.
      ...S3_COMPATIBLE,
    });
    clients.set(id, client);
    // Evicted clients are only dropped, not destroyed: the agents are shared and a read may be in flight.
    if (clients.size > MAX_CLIENTS) clients.delete(clients.keys().next().value!);
    return client;
  }

  return {
    async read(settings, key, { signal, conditional } = {}) {
      const objectKey = assertObjectKey(key, settings.prefix ?? "");
      assertBucketSettings(settings, deps.limits.allowLoopback);
      const where = `s3://${settings.alias ?? settings.bucket}/${objectKey.split("/").map(encodeURIComponent).join("/")}`;
      const budget = startBudget(deps.limits.timeoutMs, signal);
      let body: IncomingMessage | undefined;
      try {
        const command = new GetObjectCommand({
          Bucket: settings.bucket,
          Key: objectKey,
          IfNoneMatch: conditional?.ifNoneMatch,
          IfModifiedSince: validDate(conditional?.ifModifiedSince),
        });
        const output = await budget.race(clientFor(settings).send(command, { abortSignal: budget.signal }));
        if (!(output.Body instanceof IncomingMessage))
          throw new AppError("SOURCE_FAILED", { detail: `${where}: unexpected body type from the SDK` });
        body = output.Body;
        return await budget.race(readObject(output, body, deps.limits.maxBytes, where));
      } catch (error) {
        if (budget.signal.aborted) throw budget.signal.reason as AppError;
        if (conditional && statusOf(error) === 304) return notModified(error, where);
        throw asBucketError(error, where);
      } finally {
        // A body not read to its end (refused, timed out) must not hold its pooled connection.
        if (body && !body.complete) body.destroy();
        budget.dispose();
      }
    },
    close() {
      clients.clear();
      agents.httpAgent.destroy();
      agents.httpsAgent.destroy();
    },
  };
}

/**
 * A normal object key only: `..` or `.` segments could be normalised by a proxy or server into a key
 * outside the prefix, a leading `/` reads as a different key on some servers, and control characters
 * have no business in an image name.
 */
function assertObjectKey(key: string, prefix: string): string {
  const full = `${prefix}${key}`;
  const refuse = (why: string) => new AppError("INVALID_SOURCE", { detail: `object key ${why}` });
  if (key === "") throw refuse("is empty");
  // A lone surrogate (\p{Cs} in unicode mode) cannot be encoded into the request path.
  if (/\p{Cs}/u.test(full)) throw refuse("is not valid Unicode");
  if (Buffer.byteLength(full, "utf8") > MAX_KEY_BYTES) throw refuse(`is over ${MAX_KEY_BYTES} bytes`);
  if (full.startsWith("/")) throw refuse("starts with /");
  // \p{Cc}: U+0000–U+001F and U+007F–U+009F.
  if (/\p{Cc}/u.test(full)) throw refuse("contains a control character");
  if (full.split("/").some((segment) => segment === ".." || segment === "."))
    throw refuse("contains a . or .. segment");
  return full;
}

function assertBucketSettings(settings: BucketSettings, allowLoopback: boolean): void {
  assertBucketEndpoint(settings.endpoint, allowLoopback);
  const invalid = (why: string) => new AppError("SOURCE_FAILED", { detail: `bucket settings: ${why}` });
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{1,220}[A-Za-z0-9]$/.test(settings.bucket))
    throw invalid("the bucket name is not valid");
  if (!/^[A-Za-z0-9-]{1,64}$/.test(settings.region)) throw invalid("the region is not valid");
  if (settings.accessKeyId === "" || settings.secretAccessKey === "")
    throw invalid("the access key id and secret are required");
}

async function readObject(
  output: GetObjectCommandOutput,
  body: IncomingMessage,
  maxBytes: number,
  where: string,
): Promise<FetchedSource> {
  // Refused on the declared length before a byte is read; readCappedBody counts the stream as well.
  if (output.ContentLength !== undefined && output.ContentLength > maxBytes) {
    throw new AppError("SOURCE_TOO_LARGE", {
      detail: `${where} declared ${output.ContentLength} bytes (limit ${maxBytes})`,
    });
  }
  const encoding = output.ContentEncoding;
  // An object stored with Content-Encoding gzip is served as such; inflating it could not be bounded.
  if (encoding && encoding.toLowerCase() !== "identity")
    throw new AppError("SOURCE_FAILED", { detail: `${where} is stored with Content-Encoding ${encoding}` });
  const bytes = await readCappedBody(body, maxBytes, where);
  return {
    bytes,
    contentType: output.ContentType ?? null,
    finalUrl: where,
    response: { status: body.statusCode ?? 200, headers: { ...body.headers } },
  };
}

function notModified(error: unknown, where: string): FetchedSource {
  const headers = (error as { $response?: { headers?: Record<string, string> } }).$response?.headers ?? {};
  return {
    bytes: Buffer.alloc(0),
    contentType: null,
    finalUrl: where,
    response: { status: 304, headers: { ...headers } },
    notModified: true,
  };
}

function asBucketError(error: unknown, where: string): AppError {
  if (isAppError(error)) return error;
  const status = statusOf(error);
  if (!(error instanceof S3ServiceException) || status === undefined) {
    const code = (error as { code?: unknown } | null)?.code;
    return new AppError("SOURCE_FAILED", {
      detail: `${where}: could not reach the bucket endpoint${typeof code === "string" ? ` (${code})` : ""}`,
      cause: error,
    });
  }
  if (error.name === "NoSuchKey" || (status === 404 && error.name !== "NoSuchBucket")) {
    return new AppError("SOURCE_NOT_FOUND", { detail: `${where} does not exist`, cause: error });
  }
  const known = Object.hasOwn(refusals, error.name) ? refusals[error.name as keyof typeof refusals] : undefined;
  const reason = known ?? (status === 403 ? refusals.AccessDenied : `the bucket answered ${status} (${error.name})`);
  return new AppError("SOURCE_FAILED", { detail: `${where}: ${reason}`, cause: error });
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function validDate(text: string | undefined): Date | undefined {
  const date = text === undefined ? undefined : new Date(text);
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}
