import { writeFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { toWireError } from "@/server/errors";
import { redirectsWithin } from "../allowlist";
import { fetchRemoteSource } from "../safe-fetch";
import type { DownloadMessage, DownloadReply, DownloadThreadSettings } from "./protocol";

/**
 * The download thread: the same guarded fetcher as the server's (address policy, redirect policy,
 * byte and time limits), in its own V8 isolate. A source's chunks are allocated, joined and collected
 * here, so the garbage of several MB per image never reaches the server thread's heap, whose full
 * collections it used to start (bench:image, docs/benchmarks.md). The joined bytes are written to the
 * file (the source cache's, and what a transform process reads) and handed to the server's thread as
 * well, transferred, not copied: reading the file back cost the server a third copy of every source.
 */
const settings = workerData as DownloadThreadSettings;

parentPort?.on("message", (message: DownloadMessage) => {
  void download(message).then((reply) => {
    try {
      parentPort?.postMessage(reply, reply.ok && reply.bytes ? [reply.bytes.buffer] : []);
    } catch (thrown) {
      // What cannot be sent fails this download only, not the thread with every download in flight.
      parentPort?.postMessage({ id: message.id, ok: false, error: toWireError(thrown) } satisfies DownloadReply);
    }
  });
});

async function download(message: DownloadMessage): Promise<DownloadReply> {
  try {
    const fetched = await fetchRemoteSource(new URL(message.url), settings.limits, {
      mayFollow: redirectsWithin(message.sourceHosts),
      conditional: message.conditional,
    });
    const { finalUrl, response, notModified } = fetched;
    const downloaded = { size: fetched.bytes.length, finalUrl, response, notModified };
    if (notModified) return { id: message.id, ok: true, downloaded };
    writeFileSync(message.file, fetched.bytes);
    return { id: message.id, ok: true, downloaded, bytes: ownBuffer(fetched.bytes) };
  } catch (thrown) {
    return { id: message.id, ok: false, error: toWireError(thrown) };
  }
}

/**
 * The bytes in an ArrayBuffer of their own, to transfer: a small Buffer is a view into Node's shared
 * pool, which must not be detached (copied then, as it is small).
 */
function ownBuffer(bytes: Buffer): Uint8Array<ArrayBuffer> {
  const { buffer } = bytes;
  const whole = buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
  return whole ? new Uint8Array(buffer, 0, bytes.byteLength) : new Uint8Array(bytes);
}
