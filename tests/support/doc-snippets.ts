import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The first fenced block of `lang` in a doc, as the page shows it to readers. */
export function firstBlock(doc: string, lang: string): string | undefined {
  return new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```[ \\t]*$", "m").exec(doc)?.[1];
}

const goCache = join(tmpdir(), "optstuff-go-cache");

/** `go run` without a module or a download: GOPATH mode, no proxy, the toolchain installed. */
export const GO_OFFLINE_ENV = {
  GO111MODULE: "off",
  GOFLAGS: "",
  GOPROXY: "off",
  GOTOOLCHAIN: "local",
  GOCACHE: goCache,
  GOPATH: join(goCache, "gopath"),
};

/**
 * Writes a snippet and its harness into a directory of their own and runs the harness with `input` on
 * stdin; answers what it printed, one line per entry. Throws with stderr when it did not exit 0.
 */
export function runSnippet(
  label: string,
  files: Record<string, string>,
  command: string[],
  input: string,
  env: Record<string, string> = {},
): string[] {
  const dir = mkdtempSync(join(tmpdir(), `optstuff-${label}-snippet-`));
  try {
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    const [cmd, ...args] = command;
    const run = spawnSync(cmd!, args, {
      cwd: dir,
      input,
      encoding: "utf8",
      timeout: 55_000,
      env: { ...process.env, ...env },
    });
    if (run.status !== 0) throw new Error(`${label} snippet exited with ${run.status ?? run.signal}:\n${run.stderr}`);
    return run.stdout.trimEnd().split("\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
