import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createScratchDirectory } from "@/server/scratch-directory";

describe("scratch directory", () => {
  it("is made on first use in the tmpfs when it has room, named for this process, and removed whole", () => {
    const scratch = createScratchDirectory("optstuff-test-scratch-", { tmpfs: os.tmpdir(), minFreeBytes: 1 });
    const made = scratch.path();
    expect(path.dirname(made)).toBe(os.tmpdir());
    expect(path.basename(made)).toMatch(new RegExp(`^optstuff-test-scratch-${process.pid}-`));
    expect(scratch.path()).toBe(made);
    scratch.remove();
    expect(existsSync(made)).toBe(false);
  });

  it("falls back to the temporary directory when the tmpfs is missing or too small", () => {
    for (const options of [
      { tmpfs: "/nonexistent-tmpfs" },
      { tmpfs: "/dev/shm", minFreeBytes: Number.MAX_SAFE_INTEGER },
    ]) {
      const scratch = createScratchDirectory("optstuff-test-scratch-", options);
      expect(path.dirname(scratch.path())).toBe(os.tmpdir());
      scratch.remove();
    }
  });

  it("removes what a dead server left behind, and nothing of a live one", () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const left = path.join(os.tmpdir(), `optstuff-test-scratch-${dead.stdout}-left`);
    const live = path.join(os.tmpdir(), `optstuff-test-scratch-${process.ppid}-live`);
    mkdirSync(left, { recursive: true });
    mkdirSync(live, { recursive: true });
    const scratch = createScratchDirectory("optstuff-test-scratch-", { tmpfs: os.tmpdir(), minFreeBytes: 1 });
    scratch.path();
    expect(existsSync(left)).toBe(false);
    expect(existsSync(live)).toBe(true);
    scratch.remove();
    rmSync(live, { recursive: true, force: true });
  });
});
