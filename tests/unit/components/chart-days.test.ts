import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * A usage day is a UTC day: a viewer west of Greenwich still reads 1 November on 1 November's bar.
 * Run in a process whose zone is Los Angeles (a zone cannot be changed inside this one).
 */
function formatWestOfGreenwich(day: string): { tick: string; label: string; local: string } {
  const script = `
    import { utcDayLabel, utcDayTick } from "./src/components/usage/chart-style.ts";
    const day = ${JSON.stringify(day)};
    console.log(JSON.stringify({
      tick: utcDayTick(day),
      label: utcDayLabel(day),
      local: new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric" }).format(new Date("2026-11-01T00:00:00Z")),
    }));`;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    env: { ...process.env, TZ: "America/Los_Angeles", LANG: "en_US.UTF-8" },
    encoding: "utf8",
  });
  return JSON.parse(out.trim().split("\n").at(-1)!) as { tick: string; label: string; local: string };
}

describe("usage days on a chart", () => {
  it("are written in the viewer's words but never moved to the viewer's zone", () => {
    for (const day of ["2026-11-01", "2026-11-01T00:00:00.000Z"]) {
      const shown = formatWestOfGreenwich(day);
      expect(shown.local).toBe("Oct 31"); // what the viewer's zone would make of the day
      expect(shown.tick).toMatch(/\b1\b/);
      expect(shown.tick).not.toMatch(/31/);
      expect(shown.label).toMatch(/\b1\b.*2026.*\(UTC day\)$/);
    }
  });
});
