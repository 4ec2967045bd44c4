import { describe, expect, it } from "vitest";
import { buildMigration } from "@/cli/commands/migrate";

describe("whose database a build on Vercel migrates (optstuff migrate --vercel-build)", () => {
  it.each([
    [undefined, "off", true],
    ["production", "off", true],
    ["production", "on", true],
    ["preview", "on", true],
    ["preview", "off", false],
    ["development", "on", false],
  ] as const)("VERCEL_ENV=%s with OPTSTUFF_MIGRATE_PREVIEWS=%s: migrates %s", (VERCEL_ENV, previews, migrates) => {
    expect(buildMigration({ VERCEL_ENV, OPTSTUFF_MIGRATE_PREVIEWS: previews }).migrate).toBe(migrates);
  });

  it("says, when a preview migrates nothing, what would let it migrate its own database", () => {
    expect(buildMigration({ VERCEL_ENV: "preview", OPTSTUFF_MIGRATE_PREVIEWS: "off" })).toEqual({
      migrate: false,
      skipped: expect.stringMatching(/could be production's.*OPTSTUFF_MIGRATE_PREVIEWS=on for Preview/),
    });
  });
});
