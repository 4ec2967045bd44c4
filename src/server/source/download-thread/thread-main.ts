import { writeFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { toWireError } from "@/server/errors";
import { redirectsWithin } from "../allowlist";
import { fetchRemoteSource } from "../safe-fetch";
import type { DownloadMessage, DownloadReply, DownloadThreadSettings } from "./protocol";

/**
 * The download thread: the same guarded fetcher as the server's (address policy, redirect policy,
 * byte and time limits), in its own V8 isolate. A source's buffers are allocated, collected and written
 * to their file here, so several MB per image never reach the server thread's heap, whose full
 * collections they used to start (bench:image, docs/benchmarks.md).
 */
const settings = workerData as DownloadThreadSettings;

parentPort?.on("message", (message: DownloadMessage) => {
  void download(message).then((reply) => parentPort?.postMessage(reply));
});

async function download(message: DownloadMessage): Promise<DownloadReply> {
  try {
    const fetched = await fetchRemoteSource(new URL(message.url), settings.limits, {
      mayFollow: redirectsWithin(message.sourceHosts),
      conditional: message.conditional,
    });
    if (!fetched.notModified) writeFileSync(message.file, fetched.bytes);
    const { finalUrl, response, notModified } = fetched;
    return { id: message.id, ok: true, downloaded: { size: fetched.bytes.length, finalUrl, response, notModified } };
  } catch (thrown) {
    return { id: message.id, ok: false, error: toWireError(thrown) };
  }
}
