import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

/** s3rver's fixed development credentials. */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export interface S3rverProcess {
  endpoint: string;
  pid: number;
  /** Kills the server; its files stay until stop(). */
  kill(): Promise<void>;
  /** Starts it again on the same port and files (an outage that ends). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver, from npm) on loopback in its own process, with its files in a
 * temporary directory. Port 0 picks a free one.
 */
export async function startS3rver(port = 0): Promise<S3rverProcess> {
  const directory = mkdtempSync(path.join(os.tmpdir(), "optstuff-s3-"));
  const bin = path.join(
    path.dirname(createRequire(import.meta.url).resolve("s3rver/package.json")),
    "bin",
    "s3rver.js",
  );
  let child: ChildProcess | null = null;
  let bound = port;

  async function start(): Promise<void> {
    const running = spawn(
      process.execPath,
      // s3rver enciphers its listing continuation tokens with DES, which OpenSSL 3 keeps in its legacy
      // provider: without it, every listing longer than a page fails with InternalError.
      ["--openssl-legacy-provider", bin, "-d", directory, "-a", "127.0.0.1", "-p", String(bound), "--silent"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    child = running;
    bound = await new Promise<number>((resolve, reject) => {
      running.stdout!.on("data", (chunk: Buffer) => {
        const match = /listening on [\d.]+:(\d+)/.exec(chunk.toString());
        if (match) resolve(Number(match[1]));
      });
      running.once("exit", (code) => reject(new Error(`s3rver exited with ${code}`)));
    });
  }

  async function kill(): Promise<void> {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    await new Promise((resolve) => {
      running.once("exit", resolve);
      running.kill("SIGKILL");
    });
  }

  await start();
  return {
    endpoint: `http://127.0.0.1:${bound}`,
    get pid() {
      return child?.pid ?? -1;
    },
    kill,
    start,
    async stop() {
      await kill();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
