// Starts the built app: on the embedded default, creates a demo project on first start, then runs the
// app's server (scripts/server.mjs: Next's handler, told each socket's address) on loopback and says
// where it listens. Where Node has process.execve (22.15 and later), the server takes this process's
// place; on older Node it is a child, and SIGINT/SIGTERM are passed on to it.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { serverEnv } from "./server-env.mjs";

const port = process.env.PORT ?? "3000";
const host = process.env.HOST ?? "127.0.0.1";
const dataDir = process.env.OPTSTUFF_DATA_DIR ?? ".data";

if (!existsSync(".next/BUILD_ID")) {
  console.error("No build found: run `npm run build` first (or `npm run quickstart`).");
  process.exit(1);
}

if (!process.env.DATABASE_URL) {
  const envFile = path.join(dataDir, "quickstart.env");
  const bootstrap = spawnSync(
    process.execPath,
    [
      "scripts/optstuff.mjs",
      "bootstrap",
      ...["--team", "demo", "--project", "demo", "--if-empty", "--credentials-file", envFile],
    ],
    { stdio: "inherit", env: { ...process.env, PORT: port } },
  );
  if (bootstrap.status !== 0) process.exit(bootstrap.status ?? 1);
}

console.log(
  `OptStuff is starting on http://${host}:${port} (dashboard at /, image API at /api/v1/…, health at /api/health)`,
);
if (!process.env.DATABASE_URL) {
  console.log(
    `Embedded mode: data and generated secrets in ${dataDir}/; demo credentials in ${dataDir}/quickstart.env`,
  );
  console.log("Sign a URL for a demo image: npm run optstuff -- sign local/photo.jpg");
}

// NEXT_MANUAL_SIG_HANDLE: the app's own handler stops the scheduler, drains the request log and flushes
// usage buffered in process before exiting; Next's default handler would exit before that finishes.
const args = ["scripts/server.mjs", "--hostname", host, "--port", port];
const env = { ...serverEnv(), NEXT_MANUAL_SIG_HANDLE: "true" };
// The server's settings (serverEnv) must be in its environment when it starts, so it is a new program
// either way; a parent kept only to pass signals on held 44 MB of the idle embedded default's 270.
// Windows has the function but not the call; a call that fails (where Node throws rather than aborts)
// leaves the child below.
if (typeof process.execve === "function" && process.platform !== "win32") {
  try {
    process.execve(process.execPath, [process.execPath, ...args], env);
  } catch (error) {
    console.error(`Starting the server as a child process: ${error instanceof Error ? error.message : error}`);
  }
}
const server = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"], env });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
