import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseEnv, SETTING_GROUPS } from "@/env";
import type { Setting } from "@/server/config/setting";
import { readDoc } from "../../../scripts/generate-docs";
import { renderEnvExample, settingSections, shownDefault, updateSelfHostingDoc } from "../../../scripts/docs/settings";
import { DOCUMENTS } from "../../support/documents";

const declared = SETTING_GROUPS.flatMap((g) => Object.entries(g.settings as Record<string, Setting<unknown>>));
const names = new Set(declared.map(([name]) => name));

/** What an integrator's own code reads (src/lib/snippets.ts), not this server. */
const INTEGRATOR_VARIABLES = new Set([
  "OPTSTUFF_BASE_URL",
  "OPTSTUFF_PROJECT_SLUG",
  "OPTSTUFF_PUBLIC_KEY",
  "OPTSTUFF_SECRET_KEY",
]);

/** `NAME=value` lines of .env.example, as a shell or a dotenv loader reads them. */
function assignments(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split("\n")
      .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

describe("settings declared once", () => {
  it("declares each variable in exactly one table", () => {
    // A name in two tables would be silently overridden by the later one when src/env.ts assembles them.
    expect(declared.length).toBe(names.size);
  });

  it("holds each constant default within its own bounds and words", () => {
    for (const [name, s] of declared) {
      if (s.default === undefined || typeof s.default === "boolean") continue;
      const parsed = parseEnv({ [name]: String(s.default) }) as Record<string, unknown>;
      expect(parsed[name], name).toEqual(s.default);
      expect(parseEnv({})[name as keyof ReturnType<typeof parseEnv>], name).toEqual(s.default);
    }
  });

  it("refuses a number out of its bounds and a word not among its choices, naming the variable", () => {
    expect(() => parseEnv({ OPTSTUFF_TRANSFORM_NICE: "20" })).toThrow(/OPTSTUFF_TRANSFORM_NICE/);
    expect(() => parseEnv({ OPTSTUFF_MAX_FRAMES: "0" })).toThrow(/OPTSTUFF_MAX_FRAMES/);
    expect(() => parseEnv({ OPTSTUFF_MAX_FRAMES: "1.5" })).toThrow(/OPTSTUFF_MAX_FRAMES/);
    expect(() => parseEnv({ OPTSTUFF_REQUEST_LOG_SAMPLE_RATE: "1.01" })).toThrow(/SAMPLE_RATE/);
    expect(() => parseEnv({ OPTSTUFF_SCHEDULER: "sometimes" })).toThrow(/OPTSTUFF_SCHEDULER/);
    expect(() => parseEnv({ OPTSTUFF_ALLOW_LOOPBACK_SOURCES: "maybe" })).toThrow(/LOOPBACK/);
  });
});

describe(".env.example", () => {
  const committed = readFileSync(".env.example", "utf8");

  it("is exactly what the settings tables generate", () => {
    // On failure: npx tsx scripts/generate-docs.ts, then review and commit the diff.
    expect(committed).toBe(renderEnvExample());
  });

  it("lists every variable an operator sets, and copied as it is changes nothing", () => {
    const listed = assignments(committed);
    const operatorSet = settingSections()
      .filter((s) => !s.platform)
      .flatMap((s) => s.rows.map((r) => r.name));
    expect(Object.keys(listed).sort()).toEqual([...operatorSet].sort());
    expect(parseEnv(listed)).toEqual(parseEnv({}));
  });

  it("assigns no secret a value", () => {
    const listed = assignments(committed);
    for (const [name, s] of declared) if (s.secret) expect(listed[name], name).toBe("");
  });
});

describe("docs/self-hosting.md", () => {
  const committed = readDoc("docs/self-hosting.md");

  it("has exactly the variables tables generated from the settings tables", () => {
    // On failure: npx tsx scripts/generate-docs.ts, then review and commit the diff.
    expect(updateSelfHostingDoc(committed)).toBe(committed);
  });

  it("lists every variable with its default", () => {
    for (const [name, s] of declared)
      expect(committed, name).toContain(`| \`${name}\` | ${shownDefault(name, s).replace(/\|/g, "\\|")} |`);
  });
});

describe("the documentation", () => {
  it("names no server variable that is not declared", () => {
    const mentioned = new Set(
      DOCUMENTS.flatMap((doc) =>
        [...readFileSync(doc, "utf8").matchAll(/\bOPTSTUFF_[A-Z0-9_]*[A-Z0-9]\b/g)].map((m) => m[0]),
      ),
    );
    const unknown = [...mentioned].filter((name) => !names.has(name) && !INTEGRATOR_VARIABLES.has(name));
    expect(unknown).toEqual([]);
  });
});
