import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { publicBaseUrl, type PlatformAddress } from "./platform";
import type { ServerValues } from "./server-settings";
import { writeFileReplacing } from "../write-file-replacing";

type AddressEnv = PlatformAddress & Pick<ServerValues, "OPTSTUFF_DATA_DIR">;

/**
 * Where the server answers, written down for the commands beside it. PORT and HOST are given to
 * `npm start` (OPTSTUFF_PUBLIC_BASE_URL often too), not to the shell a command runs in later: a command
 * working the address out of its own environment printed port 3000 beside a server on 4820. So the
 * server writes the public base URL it worked out (publicBaseUrl, as its dashboard shows it) into its
 * data directory at every start, and a command whose environment does not name the address prints
 * that one. The file stays when the server stops: it is where the server answers when it runs.
 */
const FILE = "server.json";

const recordSchema = z.object({
  publicBaseUrl: z.url({ protocol: /^https?$/ }),
  pid: z.number().int(),
  since: z.iso.datetime(),
});

export type ServerAddress = z.infer<typeof recordSchema>;

/** Written whole, then renamed into place: a command reading at that moment sees the old address or the new one. */
export function recordServerAddress(e: AddressEnv, now: Date): string {
  const dataDir = path.resolve(e.OPTSTUFF_DATA_DIR);
  const file = path.join(dataDir, FILE);
  const record: ServerAddress = { publicBaseUrl: publicBaseUrl(e), pid: process.pid, since: now.toISOString() };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileReplacing(file, `${JSON.stringify(record)}\n`);
  return file;
}

/** What the last server on this data directory wrote; null when none did (or what is there is not a record). */
export function recordedServerAddress(dataDir: string): ServerAddress | null {
  let text: string;
  try {
    text = readFileSync(path.join(path.resolve(dataDir), FILE), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  // A damaged file says nothing about the address: the settings' own answer is then the best there is.
  const parsed = recordSchema.safeParse(safeJson(text));
  return parsed.success ? parsed.data : null;
}

export interface CommandAddress {
  baseUrl: string;
  /** Where it comes from, for a command that says so (doctor). */
  from: "environment" | "server" | "defaults";
}

/**
 * The base URL every command prints: its own environment's when that names the address
 * (OPTSTUFF_PUBLIC_BASE_URL, HOST, PORT or Vercel's variables: an explicit setting wins, and
 * `npm start` hands its PORT to the bootstrap it runs before the server writes anything), else the one
 * the server wrote at its last start, else the defaults' (http://127.0.0.1:3000).
 */
export function commandAddress(e: AddressEnv, addressInEnvironment: boolean): CommandAddress {
  if (addressInEnvironment) return { baseUrl: publicBaseUrl(e), from: "environment" };
  const recorded = recordedServerAddress(e.OPTSTUFF_DATA_DIR);
  if (recorded) return { baseUrl: recorded.publicBaseUrl.replace(/\/+$/, ""), from: "server" };
  return { baseUrl: publicBaseUrl(e), from: "defaults" };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
