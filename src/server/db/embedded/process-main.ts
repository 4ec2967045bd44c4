import { chmodSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { PGLiteSocketHandler } from "@electric-sql/pglite-socket";
import { DatabaseInUseError } from "../embedded-lock";
import { openPglite } from "./open-pglite";
import type { DatabaseProcessMessage, DatabaseProcessSettings } from "./protocol";
import { createSessionQueue } from "./session-queue";
import { createSocketPlace, removeSocketFolder } from "./socket-path";

/**
 * The embedded database's process: PGlite runs here, off the thread that serves images, and the server
 * (and the command line, while the server runs) speak PostgreSQL's protocol to it over a Unix socket.
 * It owns the data directory's lock for as long as it runs, and ends with the server: when the IPC
 * channel closes (the server stopped, or was killed) it closes PGlite cleanly and exits. A signal to
 * the whole process group (Ctrl-C, a service manager's stop) is left to the server, which still needs
 * the database to drain the request log; the channel's end follows.
 */
const settings = JSON.parse(process.argv[2] ?? "{}") as DatabaseProcessSettings;
const tell = (message: DatabaseProcessMessage) =>
  new Promise<void>((resolve) => (process.send ? process.send(message, () => resolve()) : resolve()));
/** Says why, then ends: an exit right after send() could drop the message. */
const fail = (message: DatabaseProcessMessage) => void tell(message).finally(() => process.exit(1));

// Everything this process creates (the socket first) is its user's alone, from the moment it exists.
process.umask(0o077);
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});

let stopping: Promise<void> | null = null;

async function main(): Promise<void> {
  let database: Awaited<ReturnType<typeof openPglite>>;
  // Chosen before the lock is taken: the owner file names it, and the command line finds it there.
  const place = createSocketPlace(settings.dataDir, settings.tempDir);
  try {
    database = await openPglite(settings.dataDir, settings.sharedBuffersMb, {
      role: settings.role,
      socket: place.socket,
      serverPid: settings.serverPid,
      onCompromised: (error) => {
        fail({ type: "lost-lock", message: error.message });
      },
      onTakeover: (owner) => {
        // A killed owner's socket folder in the temp directory has nobody else to remove it.
        if (owner?.socket) removeSocketFolder(owner.socket);
        void tell({ type: "took-over", owner });
      },
    });
  } catch (error) {
    place.remove();
    return fail(
      error instanceof DatabaseInUseError
        ? { type: "in-use", owner: error.owner }
        : { type: "failed", message: error instanceof Error ? error.message : String(error) },
    );
  }
  const queue = createSessionQueue(database.client);
  const sockets = new Set<Socket>();
  const server = await listen(place.socket, (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    const handler = new PGLiteSocketHandler({
      // Structurally the queue pglite-socket expects; ours keeps each connection's query whole.
      queryQueue: queue as unknown as ConstructorParameters<typeof PGLiteSocketHandler>[0]["queryQueue"],
      closeOnDetach: true,
    });
    handler.addEventListener("error", () => socket.destroy());
    void handler.attach(socket);
  }).catch(async (error: unknown) => {
    await database.close().catch(() => undefined);
    place.remove();
    throw error;
  });
  const stop = () =>
    (stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // A command line still connected loses its connection, as with any database that stops.
      for (const socket of sockets) socket.destroy();
      await closed;
      // Each connection's handler rolls back what it left open before PGlite closes.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await database.close();
      rmSync(place.socket, { force: true });
      place.remove();
    })().finally(() => process.exit(0)));
  process.on("disconnect", () => void stop());
  await tell({ type: "ready", socket: place.socket });
}

async function listen(socketPath: string, onConnection: Parameters<typeof createServer>[1]): Promise<Server> {
  // A socket left in the data directory by a process that was killed: the lock (now ours) says nobody serves it.
  rmSync(socketPath, { force: true });
  const server = createServer(onConnection);
  // The server's pool (10) and a few command lines; more would only queue for the one session.
  server.maxConnections = 64;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  return server;
}

void main().catch((error: unknown) =>
  fail({ type: "failed", message: error instanceof Error ? error.message : String(error) }),
);
