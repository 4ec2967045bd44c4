import type { DatabaseOwner } from "../embedded-lock";

/** What the server tells its database process when it starts it (as argv[2], JSON). */
export interface DatabaseProcessSettings {
  dataDir: string;
  sharedBuffersMb: number;
  socket: string;
  role: string;
  serverPid: number;
}

/** What the database process tells the server. */
export type DatabaseProcessMessage =
  | { type: "ready" }
  | { type: "in-use"; owner: DatabaseOwner | null }
  | { type: "failed"; message: string }
  | { type: "took-over"; owner: DatabaseOwner | null }
  | { type: "lost-lock"; message: string };
