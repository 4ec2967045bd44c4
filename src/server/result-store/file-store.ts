import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { decodeFile, encodeFile } from "./envelope";
import { fairEvictions } from "./fair-eviction";
import { readFileOfSize } from "./read-file-of-size";
import { KEY_PATTERN, type ResultStore, type StoreSize } from "./types";

export interface FileStoreOptions {
  /** Directory the store owns (created). */
  root: string;
  maxBytes: number;
  now?: () => number;
}

interface Entry {
  bytes: number;
  usedAt: number;
}

/** A read refreshes the file's mtime at most this often: the LRU order survives a restart at that grain. */
const TOUCH_EVERY_MS = 60_000;
/** Eviction goes below the bound so that it does not run again on the next write. */
const PRUNE_TO = 0.9;

/** A key's first segment: the project its result belongs to. */
const projectOf = (key: string) => key.split("/", 1)[0]!;

/**
 * Results as files under the data directory. Writes go to a temporary file that is renamed into place
 * (atomic on one filesystem), so a crash leaves a whole old file, a whole new one, or a stray temporary
 * that the next start deletes; every read is verified as well (envelope.ts). The recency index lives
 * in memory and is rebuilt from file mtimes at start.
 *
 * Past its bound the store evicts from the team that holds the most, its least recently used first:
 * one tenant filling the store with new variants evicts its own results, never another's below its
 * own size. Which team a project belongs to is kept in `teams.json`, so this holds after a restart.
 */
export function createFileStore(options: FileStoreOptions): ResultStore {
  const objects = path.join(options.root, "objects");
  const temporary = path.join(options.root, "tmp");
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  // Per project (the keys' first segment), kept with the index: a tenant's share without a scan.
  const projects = new Map<string, StoreSize>();
  // Whose each project's results are: eviction takes from the team that holds the most.
  const teamOfProject = new Map<string, string>();
  const teamsFile = path.join(options.root, "teams.json");
  let saving: Promise<void> = Promise.resolve();
  let bytes = 0;
  let pruning: Promise<{ deleted: number; bytes: number }> | null = null;
  const ready = start();
  // Awaited by every call, which then fails (a store that cannot start is a store that is down);
  // this only keeps the rejection from being reported as unhandled before the first call.
  ready.catch(() => undefined);

  async function start(): Promise<void> {
    await rm(temporary, { recursive: true, force: true });
    await mkdir(temporary, { recursive: true });
    await mkdir(objects, { recursive: true });
    for (const [project, team] of Object.entries(await readTeams(teamsFile))) teamOfProject.set(project, team);
    const found: Array<[string, Entry]> = [];
    for (const relative of await walk(objects)) {
      const info = await stat(path.join(objects, relative)).catch(() => null);
      if (info) found.push([relative.split(path.sep).join("/"), { bytes: info.size, usedAt: info.mtimeMs }]);
    }
    // Oldest first, so the Map's order is the recency order.
    for (const [key, entry] of found.sort((a, b) => a[1].usedAt - b[1].usedAt)) remember(key, entry);
  }

  function remember(key: string, entry: Entry): void {
    forget(key);
    entries.set(key, entry);
    bytes += entry.bytes;
    count(key, entry.bytes, 1);
  }

  /** Records a project's team (once per project), for eviction and across restarts. */
  async function learnTeam(projectId: string, team: string): Promise<void> {
    if (teamOfProject.get(projectId) === team) return;
    teamOfProject.set(projectId, team);
    // One write at a time, each of the whole map as it is then: the last rename holds every team.
    saving = saving
      .catch(() => undefined)
      .then(async () => {
        const staged = path.join(temporary, randomUUID());
        await writeFile(staged, JSON.stringify(Object.fromEntries(teamOfProject)), { flush: true });
        await rename(staged, teamsFile);
      });
    await saving;
  }

  function forget(key: string): void {
    const existing = entries.get(key);
    if (!existing) return;
    entries.delete(key);
    bytes -= existing.bytes;
    count(key, -existing.bytes, -1);
  }

  function count(key: string, bytesDelta: number, objectsDelta: number): void {
    const project = projectOf(key);
    const share = projects.get(project) ?? { bytes: 0, objects: 0 };
    const next = { bytes: share.bytes + bytesDelta, objects: share.objects + objectsDelta };
    if (next.objects === 0) projects.delete(project);
    else projects.set(project, next);
  }

  function fileOf(key: string): string {
    if (!KEY_PATTERN.test(key)) throw new Error(`invalid result store key: ${key}`);
    return path.join(objects, ...key.split("/"));
  }

  async function remove(key: string): Promise<void> {
    forget(key);
    await unlink(fileOf(key)).catch(() => undefined);
  }

  async function prune(): Promise<{ deleted: number; bytes: number }> {
    await ready;
    let deleted = 0;
    let freed = 0;
    const target = options.maxBytes * PRUNE_TO;
    if (bytes <= target) return { deleted, bytes: freed };
    // The index is in recency order: oldest first, as eviction wants it.
    const held = [...entries].map(([key, entry]) => ({
      key,
      bytes: entry.bytes,
      team: teamOfProject.get(projectOf(key)) ?? null,
    }));
    for (const key of fairEvictions(held, bytes - target)) {
      const entry = entries.get(key);
      if (!entry) continue; // gone meanwhile (a purge)
      freed += entry.bytes;
      deleted++;
      await remove(key);
    }
    return { deleted, bytes: freed };
  }

  return {
    kind: "files",
    async get(key) {
      await ready;
      const file = fileOf(key);
      const entry = entries.get(key);
      if (!entry) return null;
      const content = await readFileOfSize(file, entry.bytes);
      const result = content && decodeFile(content);
      if (!result) {
        await remove(key);
        return null;
      }
      const at = now();
      if (at - entry.usedAt >= TOUCH_EVERY_MS) await utimes(file, at / 1000, at / 1000).catch(() => undefined);
      remember(key, { bytes: content.length, usedAt: Math.max(at, entry.usedAt) });
      return result;
    },
    async put(key, result, team) {
      await ready;
      const file = fileOf(key);
      if (team !== undefined) await learnTeam(projectOf(key), team);
      const content = encodeFile(result);
      // One result larger than a quarter of the store would flush everything else for a single hit.
      if (content.length > options.maxBytes / 4) return "too-large";
      const staged = path.join(temporary, randomUUID());
      const at = now();
      try {
        const handle = await open(staged, "wx");
        try {
          await handle.writeFile(content);
          // The file's mtime is its place in the recency order after a restart, on the store's clock.
          await handle.utimes(at / 1000, at / 1000);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await mkdir(path.dirname(file), { recursive: true });
        await rename(staged, file);
      } catch (error) {
        await unlink(staged).catch(() => undefined);
        throw error;
      }
      remember(key, { bytes: content.length, usedAt: at });
      if (bytes > options.maxBytes) {
        pruning ??= prune().finally(() => (pruning = null));
        await pruning;
      }
      return "stored";
    },
    async deletePrefix(prefix) {
      await ready;
      fileOf(prefix);
      let deleted = 0;
      for (const key of [...entries.keys()]) {
        if (key === prefix || key.startsWith(`${prefix}/`)) {
          forget(key);
          deleted++;
        }
      }
      await rm(path.join(objects, ...prefix.split("/")), { recursive: true, force: true });
      return deleted;
    },
    size: () => ({ bytes, objects: entries.size }),
    projectSize: (projectId) => ({ ...(projects.get(projectId) ?? { bytes: 0, objects: 0 }) }),
    prune,
    async close() {
      await ready.catch(() => undefined);
      await pruning;
    },
  };
}

async function readTeams(file: string): Promise<Record<string, string>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(file, "utf8"));
    if (!parsed || typeof parsed !== "object") return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((pair): pair is [string, string] => typeof pair[1] === "string"),
    );
  } catch {
    return {}; // none yet, or damaged: results count as no team's until their projects write again
  }
}

/** Every file under `dir`, relative to it. */
async function walk(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for (const item of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = path.join(prefix, item.name);
    if (item.isDirectory()) found.push(...(await walk(dir, relative)));
    else if (item.isFile()) found.push(relative);
  }
  return found;
}
