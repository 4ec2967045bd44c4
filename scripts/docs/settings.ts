/**
 * .env.example and the variables tables of docs/self-hosting.md, both from the settings tables the
 * modules declare (src/server/<module>/settings.ts, assembled in src/env.ts).
 */
import { SETTING_GROUPS } from "@/env";
import type { Setting } from "@/server/config/setting";
import { code, GENERATOR, renderTable, replaceSections } from "./markdown";

interface Row {
  name: string;
  setting: Setting<unknown>;
}

interface Section {
  title: string;
  platform: boolean;
  rows: Row[];
}

const SOURCE = "the settings tables (src/server/*/settings.ts)";

export function settingSections(): Section[] {
  return SETTING_GROUPS.map((g) => ({
    title: g.title,
    platform: "platform" in g && g.platform === true,
    rows: Object.entries(g.settings as Record<string, Setting<unknown>>).map(([name, setting]) => ({ name, setting })),
  }));
}

/** The value .env.example assigns: the constant default, else nothing (an empty value means the default). */
export function exampleValue(setting: Setting<unknown>): string {
  if (setting.secret || setting.default === undefined) return "";
  if (typeof setting.default === "boolean") return setting.default ? "1" : "0";
  return String(setting.default);
}

/** The default as a reader wants it: `25 MiB`, `1,200`, `auto`, or the words of a worked-out one. */
export function shownDefault(name: string, setting: Setting<unknown>): string {
  const value = setting.default;
  if (value === undefined) return setting.defaultText ?? "unset";
  if (typeof value === "boolean") return value ? "on" : "off";
  if (typeof value === "number") {
    const mib = value / 2 ** 20;
    if (name.endsWith("_BYTES") && value > 0 && Number.isInteger(mib))
      return mib >= 1024 ? `${mib / 1024} GiB` : `${mib} MiB`;
    return value.toLocaleString("en");
  }
  return code(String(value));
}

function describe(setting: Setting<unknown>): string {
  const range =
    setting.max !== undefined
      ? ` Accepts ${(setting.min ?? 0).toLocaleString("en")}–${setting.max.toLocaleString("en")}.`
      : setting.min !== undefined && setting.min > 0
        ? ` At least ${setting.min.toLocaleString("en")}.`
        : "";
  const words = setting.values ? ` One of ${setting.values.map(code).join(", ")}.` : "";
  return `${setting.doc}${range}${words}`;
}

export function renderSettingsTables(): string {
  return settingSections()
    .map((section) =>
      [
        `#### ${section.title}`,
        "",
        renderTable(
          SOURCE,
          ["variable", "default", "what it does"],
          section.rows.map(({ name, setting }) => [code(name), shownDefault(name, setting), describe(setting)]),
        ),
      ].join("\n"),
    )
    .join("\n\n");
}

export function updateSelfHostingDoc(markdown: string): string {
  return replaceSections(markdown, { settings: renderSettingsTables() });
}

const WIDTH = 110;

/** `# `-prefixed lines of at most WIDTH characters. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.replaceAll("`", "").split(/\s+/)) {
    if (line.length + 1 + word.length > WIDTH && line !== "#") {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

export function renderEnvExample(): string {
  const header = comment(
    `OptStuff's settings, generated from ${SOURCE} by ${GENERATOR}; do not edit by hand. Every variable is optional on the embedded default (no configuration at all); in production (NODE_ENV=production with DATABASE_URL, or on Vercel) the three secrets are required. An empty value means the default. docs/self-hosting.md explains each variable.`,
  );
  const sections = settingSections()
    .filter((section) => !section.platform)
    .map((section) => [
      "",
      `# --- ${section.title} ---`,
      ...section.rows.flatMap(({ name, setting }) => {
        const value = exampleValue(setting);
        const worked = value === "" && setting.default === undefined ? setting.defaultText : undefined;
        return [...comment(`${describe(setting)}${worked ? ` Default: ${worked}.` : ""}`), `${name}=${value}`];
      }),
    ]);
  return [...header, ...sections.flat(), ""].join("\n");
}
