import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { AppError, fromWireError } from "@/server/errors";
import type { FetchLimits } from "../types";
import type { DownloadMessage, DownloadReply, DownloadRequest, Downloaded, DownloadThreadSettings } from "./protocol";

export type { DownloadRequest, Downloaded } from "./protocol";

/** Downloads a remote source into `file`, and answers its bytes too. */
export type SourceDownloader = (request: DownloadRequest, file: string) => Promise<Downloaded>;

export interface DownloadThread {
  download: SourceDownloader;
  close(): Promise<void>;
}

interface Pending {
  resolve: (downloaded: Downloaded) => void;
  reject: (error: AppError) => void;
}

/**
 * Remote sources downloaded in a worker thread (thread-main.ts): the server's thread sends a URL and
 * the policy, and gets back a file, its bytes (transferred) and its response headers. One thread serves
 * every download (they wait on the network, not the CPU); it starts on first use and again after a
 * crash, which fails only the downloads in flight.
 */
export function createDownloadThread(options: { entry: string; limits: FetchLimits }): DownloadThread {
  const pending = new Map<number, Pending>();
  let worker: Worker | null = null;
  let sequence = 0;
  let closed = false;

  function start(): Worker {
    if (!existsSync(options.entry)) {
      throw new AppError("INTERNAL", {
        detail: `download thread not built: ${options.entry} (npm run build writes it)`,
      });
    }
    const settings: DownloadThreadSettings = { limits: options.limits };
    const thread = new Worker(options.entry, { workerData: settings });
    thread.on("message", (reply: DownloadReply) => {
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if (reply.ok)
        waiting.resolve({
          ...reply.downloaded,
          ...(reply.bytes && {
            bytes: Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength),
          }),
        });
      else waiting.reject(fromWireError(reply.error));
    });
    const fail = (detail: string) => {
      if (worker === thread) worker = null;
      for (const [id, waiting] of pending) {
        pending.delete(id);
        waiting.reject(new AppError("INTERNAL", { detail }));
      }
    };
    thread.on("error", (error) => fail(`download thread failed: ${error.message}`));
    thread.on("exit", (code) => fail(`download thread exited (code ${code})`));
    // An idle thread must not keep a CLI or a test process alive.
    thread.unref();
    return thread;
  }

  return {
    download(request, file) {
      if (closed) return Promise.reject(new AppError("NOT_READY", { detail: "download thread closed" }));
      worker ??= start();
      const id = ++sequence;
      const message: DownloadMessage = { ...request, id, file };
      return new Promise<Downloaded>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker!.postMessage(message);
      });
    },
    async close() {
      closed = true;
      await worker?.terminate();
      worker = null;
    },
  };
}
