import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";

/**
 * `total` GETs of `url`, `concurrency` at a time, from a thread of their own: latencies in ms. A
 * benchmark's origin streams multi-megabyte sources from the benchmark's main thread; clients on that
 * same event loop would time the origin's turns as the server's (hits under transforms: p99 44–61 ms
 * measured there, 36 ms from a thread of their own, same server, same load).
 */
export function getFromThread(url: string, total: number, concurrency: number, accept: string): Promise<number[]> {
  const worker = new Worker(
    `const { parentPort, workerData: { url, total, concurrency, accept } } = require("node:worker_threads");
     const latencies = [];
     let next = 0;
     const client = async () => {
       while (next++ < total) {
         const started = performance.now();
         const response = await fetch(url, { headers: { Accept: accept } });
         await response.arrayBuffer();
         if (response.status !== 200) throw new Error("expected 200, got " + response.status);
         latencies.push(performance.now() - started);
       }
     };
     Promise.all(Array.from({ length: concurrency }, client)).then(() => parentPort.postMessage(latencies));`,
    { eval: true, workerData: { url, total, concurrency, accept } },
  );
  return new Promise((resolve, reject) => {
    worker.once("message", (latencies: number[]) => void worker.terminate().then(() => resolve(latencies)));
    worker.once("error", reject);
  });
}

/**
 * How long a thread (Linux: /proc/<pid>/task/<tid>/schedstat) ran and waited on a run queue while it
 * could have run, per second of `wallMs`, between two readings; null where there is no /proc.
 */
export function runQueueClock(pid: number, tid = pid): () => { ranMsPerS: number; waitedMsPerS: number } | null {
  const read = () => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
    } catch {
      return null;
    }
  };
  const before = read();
  const started = performance.now();
  return () => {
    const after = read();
    if (!before || !after) return null;
    const seconds = (performance.now() - started) / 1000;
    return {
      ranMsPerS: (after[0]! - before[0]!) / 1e6 / seconds,
      waitedMsPerS: (after[1]! - before[1]!) / 1e6 / seconds,
    };
  };
}
