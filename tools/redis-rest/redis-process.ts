// Throwaway redis-server processes on loopback for local work and tests: no persistence, a temp dir
// each, stopped by the PID we spawned.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port";

const run = promisify(execFile);
const HOST = "127.0.0.1";

export interface RedisProcess {
  host: string;
  port: number;
  pid: number;
  /** Stops the server by its PID and removes its temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

export interface RedisCluster {
  nodes: RedisProcess[];
  stop(): Promise<void>;
}

// Redis servers outlive a crashed test process unless killed on the way out.
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

function waitForReady(child: ChildProcess, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(
      () => fail(new Error(`redis-server on port ${port} not ready after 10 s:\n${log}`)),
      10_000,
    );
    const onExit = (code: number | null) => fail(new Error(`redis-server on port ${port} exited (${code}):\n${log}`));
    function fail(error: Error) {
      clearTimeout(timer);
      child.off("exit", onExit);
      reject(error);
    }
    child.once("exit", onExit);
    child.once("error", (error) =>
      fail(new Error(`cannot run redis-server (apt-get install redis-server): ${error.message}`)),
    );
    // Keep draining the log after startup: a full pipe would block the server on its next log line.
    child.stdout?.on("data", (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
      if (log.includes("Ready to accept connections")) {
        clearTimeout(timer);
        child.off("exit", onExit);
        resolve();
      }
    });
  });
}

async function stopChild(child: ChildProcess, dir: string) {
  // No pid: the binary never started, so there is nothing to wait for.
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
  live.delete(child);
  await rm(dir, { recursive: true, force: true });
}

async function launch(port: number, cluster: boolean): Promise<RedisProcess> {
  const dir = await mkdtemp(join(tmpdir(), "optstuff-redis-"));
  const args = [
    "--port",
    String(port),
    "--bind",
    HOST,
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
    "--daemonize",
    "no",
  ];
  if (cluster) {
    // cluster-port (Redis 7) picks the bus port ourselves; the default port + 10000 may be taken or > 65535.
    const busPort = await freePort();
    args.push("--cluster-enabled", "yes", "--cluster-config-file", join(dir, "nodes.conf"));
    args.push("--cluster-node-timeout", "2000", "--cluster-port", String(busPort));
  }
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  child.stderr?.resume();
  try {
    await waitForReady(child, port);
  } catch (error) {
    await stopChild(child, dir);
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return { host: HOST, port, pid: child.pid!, stop: () => (stopping ??= stopChild(child, dir)) };
}

/** Starts one redis-server on loopback, on `port` or on a free port (retrying if another process takes it first). */
export async function startRedisServer(options: { port?: number; cluster?: boolean } = {}): Promise<RedisProcess> {
  if (options.port !== undefined) return launch(options.port, options.cluster ?? false);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await launch(await freePort(), options.cluster ?? false);
    } catch (error) {
      if (attempt === 3 || !String(error).includes("Address already in use")) throw error;
    }
  }
}

async function clusterInfo(port: number): Promise<string> {
  const { stdout } = await run("redis-cli", ["-h", HOST, "-p", String(port), "cluster", "info"]);
  return stdout;
}

/** Until every node sees the whole cluster as healthy, ioredis may be handed a partial slot map. */
async function waitForClusterOk(nodes: RedisProcess[]) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const infos = await Promise.all(nodes.map((node) => clusterInfo(node.port)));
    const healthy = infos.every(
      (info) => info.includes("cluster_state:ok") && info.includes(`cluster_known_nodes:${nodes.length}`),
    );
    if (healthy) return;
    if (Date.now() > deadline) throw new Error(`Redis Cluster not ok after 20 s:\n${infos.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts `masters` cluster-enabled servers, joins them with `redis-cli --cluster create` and waits for `cluster_state:ok`. */
export async function startRedisCluster(options: { masters: number } = { masters: 3 }): Promise<RedisCluster> {
  if (options.masters < 3) throw new Error("Redis Cluster needs at least 3 masters");
  const started = await Promise.allSettled(
    Array.from({ length: options.masters }, () => startRedisServer({ cluster: true })),
  );
  const nodes = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const stop = async () => void (await Promise.all(nodes.map((node) => node.stop())));
  try {
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    const addresses = nodes.map((node) => `${node.host}:${node.port}`);
    await run("redis-cli", ["--cluster", "create", ...addresses, "--cluster-replicas", "0", "--cluster-yes"], {
      timeout: 30_000,
    });
    await waitForClusterOk(nodes);
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, stop };
}
