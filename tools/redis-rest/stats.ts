// Counters for tests that budget round trips ("one image request = N Redis round trips").
import type { RedisCommand } from "./protocol";

export type EndpointKind = "command" | "pipeline" | "multiExec";

export interface RedisRestStats {
  /** Every HTTP request received, whatever became of it: one client round trip each. */
  requests: number;
  /** Commands in authorised, well-formed requests (a pipeline of 3 counts 3). */
  commands: number;
  /** Authorised, well-formed requests and their commands, by endpoint: `POST /`, `/pipeline`, `/multi-exec`. */
  byKind: Record<EndpointKind, { requests: number; commands: number }>;
  /** Commands by upper-case name (`EVALSHA`, `GET`…), as the client sent them. */
  byCommand: Record<string, number>;
  /** Requests answered 401. */
  unauthorized: number;
  /** Requests answered 4xx for their method, path or body. */
  rejected: number;
  /** Requests hung up on or held while `setDown` was on. */
  dropped: number;
}

function emptyStats(): RedisRestStats {
  const kind = () => ({ requests: 0, commands: 0 });
  return {
    requests: 0,
    commands: 0,
    byKind: { command: kind(), pipeline: kind(), multiExec: kind() },
    byCommand: {},
    unauthorized: 0,
    rejected: 0,
    dropped: 0,
  };
}

export function createStats() {
  let stats = emptyStats();
  return {
    count(event: "requests" | "unauthorized" | "rejected" | "dropped") {
      stats[event] += 1;
    },
    countCommands(kind: EndpointKind, commands: RedisCommand[]) {
      stats.byKind[kind].requests += 1;
      stats.byKind[kind].commands += commands.length;
      stats.commands += commands.length;
      for (const [name] of commands) {
        const upper = name.toUpperCase();
        stats.byCommand[upper] = (stats.byCommand[upper] ?? 0) + 1;
      }
    },
    /** A copy: later requests do not change what a test already read. */
    snapshot: (): RedisRestStats => structuredClone(stats),
    reset() {
      stats = emptyStats();
    },
  };
}

export type StatsRecorder = ReturnType<typeof createStats>;
