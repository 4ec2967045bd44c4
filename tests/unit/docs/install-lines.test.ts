import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { installCommands, installSources, isKitCommand, kitInstallCommands } from "../../support/install-lines";

const sources = installSources();
const found = sources.flatMap((source) =>
  installCommands(source.text).map((command) => ({ source: source.name, command })),
);
const rootPackage = JSON.parse(readFileSync("package.json", "utf8")) as { devDependencies: Record<string, string> };
const kitPackage = JSON.parse(readFileSync("packages/client/package.json", "utf8")) as {
  scripts: Record<string, string>;
};

/**
 * Each kind of install line the docs may give, and why it works as written. A line of no kind fails
 * the test: decide how it is checked before showing it to anyone.
 */
const KINDS: Array<{ kind: string; matches(command: string, source: string): boolean; check(command: string): void }> =
  [
    {
      // The kit is not on the npm registry: only a path to this repository's workspace or to its
      // tarball installs it. tests/integration/client/documented-install.test.ts runs these lines.
      kind: "the client kit, packed from this repository and installed from its tarball",
      matches: isKitCommand,
      check: (command) => expect(command).not.toMatch(/(?:^|\s)@optstuff\/client(?:@\S*)?(?:\s|$)/),
    },
    {
      kind: "npm ci in the repository root",
      matches: (command) => command === "npm ci",
      check: () => expect(existsSync("package-lock.json")).toBe(true),
    },
    {
      kind: "npx tsx on a script of this repository",
      matches: (command) => command.startsWith("npx tsx "),
      check: (command) => {
        expect(rootPackage.devDependencies).toHaveProperty("tsx");
        expect(existsSync(command.split(/\s+/)[2]!), command).toBe(true);
      },
    },
    {
      // tests/integration/client/package.test.ts runs npm pack in packages/client.
      kind: "npm pack in packages/client, which builds the kit first",
      matches: (command, source) => command === "npm pack" && source === "packages/client/README.md",
      check: () => expect(kitPackage.scripts.prepare).toMatch(/^tsc\b/),
    },
  ];

describe("install lines in the docs and the dashboard's snippets", () => {
  it("finds the lines people are given", () => {
    expect(found.length).toBeGreaterThan(5);
  });

  it.each(found)("$source: $command is a line known to work as written", ({ source, command }) => {
    const kind = KINDS.find((candidate) => candidate.matches(command, source));
    expect(kind, `${source}: "${command}" is of no known kind`).toBeDefined();
    kind!.check(command);
  });

  it.each(found.filter(({ command }) => /^npm (?:pack|install|i|add) /.test(command)))(
    "$source: $command names folders and tarballs as paths, which npm never reads as a GitHub repository",
    ({ command }) => {
      const args = command
        .split(/\s+/)
        .slice(2)
        .filter((arg) => !arg.startsWith("-"));
      // npm reads `owner/name` (no ./, ../ or /) as github:owner/name; `@scope/name` is a registry name.
      const shorthands = args.filter((arg) => /^[^@./~][^\s:]*\//.test(arg));
      expect(shorthands).toEqual([]);
    },
  );

  it("installs the kit the same way wherever it is shown, and says it is not on the npm registry", () => {
    const readme = kitInstallCommands(sources.find((source) => source.name === "packages/client/README.md")!.text);
    expect(readme.length).toBeGreaterThan(0);
    const showing = sources.filter((source) => kitInstallCommands(source.text).length > 0);
    expect(showing.map((source) => source.name)).toEqual(
      expect.arrayContaining(["packages/client/README.md", "docs/quickstart.md", "dashboard: next/image snippet"]),
    );
    for (const source of showing) {
      expect(kitInstallCommands(source.text), source.name).toEqual(readme);
      expect(/not\s+on\s+the\s+npm\s+registry/.test(source.text), `${source.name} says so`).toBe(true);
    }
  });
});
