import { spawnSync } from "node:child_process";

/**
 * What some suites need besides Node. A fresh machine has none of it, and `npm test` must still pass
 * there: those suites skip, and their title says what they need and how to get it (scripts/test.mjs
 * counts the skips in its summary line and lists them by need). A run that provides everything (CI's
 * second pass) sets TEST_REQUIRE_SERVICES=1, so a need that went missing there fails instead of
 * skipping quietly.
 */
const needs = {
  "redis-server": {
    present: () => onPath("redis-server"),
    how: "apt-get install redis-server",
  },
  postgresql: {
    present: () => Boolean(process.env.TEST_DATABASE_URL),
    how: "a PostgreSQL 15+ server, then TEST_DATABASE_URL=postgres://user@host:port/db npm test",
  },
  chromium: {
    present: () => chromiumPath() !== null,
    how: "apt-get install chromium (or CHROMIUM_PATH=/path/to/chromium)",
  },
  python3: { present: () => onPath("python3"), how: "apt-get install python3" },
  "npm-registry": {
    present: () => spawnSync("npm", ["ping"], { timeout: 30_000 }).status === 0,
    how: "a connection to the npm registry (npm ping)",
  },
  pgbouncer: {
    present: () => onPath("pgbouncer"),
    how: "apt-get install pgbouncer",
  },
  go: { present: () => onPath("go"), how: "apt-get install golang-go" },
  php: { present: () => onPath("php"), how: "apt-get install php-cli" },
  ruby: { present: () => onPath("ruby"), how: "apt-get install ruby" },
} satisfies Record<string, { present(): boolean; how: string }>;

export type Need = keyof typeof needs;

export interface NeedCheck {
  /** True when the suite cannot run here and is not required to. */
  skip: boolean;
  /** The suite's title, with what it needs appended when it is skipped. */
  title(base: string): string;
}

const required = () => process.env.TEST_REQUIRE_SERVICES === "1";

/**
 * `describe.skipIf(x.skip)(x.title("…"), …)`, and `if (x.skip) return;` in file-level hooks. When the
 * run requires its services, nothing skips: a missing one then fails where it is first used.
 */
export function need(...names: Need[]): NeedCheck {
  const missing = names.filter((name) => !needs[name].present());
  const skip = missing.length > 0 && !required();
  const reason = missing.map((name) => `[needs ${name}: ${needs[name].how}]`).join(" ");
  return { skip, title: (base) => (skip ? `${base} ${reason}` : base) };
}

/** The Chromium the browser tests drive: CHROMIUM_PATH, else `chromium` on PATH. */
export function chromiumPath(): string | null {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  const found = spawnSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() || null : null;
}

function onPath(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;
}
