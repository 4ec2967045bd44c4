// One HTTP request of the Upstash REST protocol: authorise, parse, run, encode.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CommandRunner } from "./command-runner";
import type { OutageSwitch } from "./outage";
import { encodeOutcome, InvalidBodyError, parseCommand, parseCommandList, type RedisCommand } from "./protocol";
import type { EndpointKind, StatsRecorder } from "./stats";

/** Generous for development; Upstash's own request limit is of the same order. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** `@upstash/redis` posts single commands to `/`; it uses path-form URLs only for SUBSCRIBE streams. */
const KIND_BY_PATH: Record<string, EndpointKind> = {
  "/": "command",
  "/pipeline": "pipeline",
  "/multi-exec": "multiExec",
};

export interface HandlerDeps {
  token: string;
  runner: CommandRunner;
  stats: StatsRecorder;
  outage: OutageSwitch;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(response: ServerResponse, status: number, body: unknown) {
  const json = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
  response.end(json);
}

/** Compares digests so neither the token's bytes nor its length leak through timing. */
function isAuthorized(header: string | undefined, token: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(header ?? ""), digest(`Bearer ${token}`));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, "ERR request body too large");
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "ERR request body is not valid JSON");
  }
}

async function run(kind: EndpointKind, body: unknown, deps: HandlerDeps, base64: boolean): Promise<[number, unknown]> {
  const commands: RedisCommand[] = kind === "command" ? [parseCommand(body)] : parseCommandList(body);
  deps.stats.countCommands(kind, commands);
  if (kind === "command") {
    const outcome = encodeOutcome(await deps.runner.single(commands[0]!), base64);
    // A failed single command is an HTTP error; the client reads `error` from the body.
    return ["error" in outcome ? 400 : 200, outcome];
  }
  const outcomes = kind === "pipeline" ? await deps.runner.pipeline(commands) : await deps.runner.transaction(commands);
  return [200, outcomes.map((outcome) => encodeOutcome(outcome, base64))];
}

export function createRequestHandler(deps: HandlerDeps) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    deps.stats.count("requests");
    if (deps.outage.intercept(request, response)) return deps.stats.count("dropped");
    await deps.outage.delay();
    if (!isAuthorized(request.headers.authorization, deps.token)) {
      deps.stats.count("unauthorized");
      return send(response, 401, { error: "Unauthorized" });
    }
    const kind = KIND_BY_PATH[new URL(request.url ?? "/", "http://endpoint").pathname];
    try {
      if (request.method !== "POST") throw new HttpError(405, "ERR only POST is supported");
      if (!kind)
        throw new HttpError(404, "ERR unknown path: send commands as JSON to POST /, /pipeline or /multi-exec");
      const base64 = String(request.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
      const [status, body] = await run(kind, await readJson(request), deps, base64);
      send(response, status, body);
    } catch (error) {
      if (error instanceof HttpError || error instanceof InvalidBodyError) {
        deps.stats.count("rejected");
        return send(response, error instanceof HttpError ? error.status : 400, { error: error.message });
      }
      // Redis itself is unreachable or the connection broke: a gateway failure, not a command error.
      send(response, 502, {
        error: `ERR Redis unavailable: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  };
}
