import type { DatabaseOwner } from "../embedded-lock";

/** What the server tells its database process when it starts it (as argv[2], JSON). */
export interface DatabaseProcessSettings {
  dataDir: string;
  sharedBuffersMb: number;
  /** The server's temp directory: the socket's folder is made there when the data directory's path is too long. */
  tempDir: string;
  role: string;
  serverPid: number;
}

/** What the database process tells the server. */
export type DatabaseProcessMessage =
  /** Serving on `socket`, which the process chose (socket-path.ts) and wrote into the owner file. */
  | { type: "ready"; socket: string }
  | { type: "in-use"; owner: DatabaseOwner | null }
  | { type: "failed"; message: string }
  | { type: "took-over"; owner: DatabaseOwner | null }
  | { type: "lost-lock"; message: string };
