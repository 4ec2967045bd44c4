import { readFileSync } from "node:fs";
import { nextImageSnippet, nextjsSnippet, nodeSnippet } from "@/lib/snippets";
import { DOCUMENTS } from "./documents";

/**
 * The install lines people are given: in the Markdown pages and in the dashboard's snippets. Read
 * here once so the static checks (install-lines.test.ts) and the run of the kit's lines as written
 * (tests/integration/client/documented-install.test.ts) see the same lines the reader does.
 */
export interface InstallSource {
  name: string;
  text: string;
}

export function installSources(): InstallSource[] {
  return [
    ...DOCUMENTS.map((file) => ({ name: file, text: readFileSync(file, "utf8") })),
    { name: "dashboard: next/image snippet", text: nextImageSnippet(["images.example.com"]) },
    { name: "dashboard: Next.js snippet", text: nextjsSnippet(["images.example.com"]) },
    { name: "dashboard: Node snippet", text: nodeSnippet(["images.example.com"]) },
  ];
}

/** A shell command that fetches or installs packages. */
const INSTALL =
  /^(?:npm (?:install|i|add|ci|pack)|npx|pnpm (?:add|install|i|dlx)|yarn(?: (?:add|install|dlx))?)(?:\s|$)/;
/** Leading comment or prompt markers: a snippet shows its install line as a `//` comment. */
const LEADER = /^(?:\s|\/\/|#|\$|>)+/;

/**
 * Every install command in a text, in order: from code spans, and from lines once comment markers
 * are stripped (fenced blocks, snippet comments). `a && b` counts as two commands; a trailing
 * `# comment` is not part of the command.
 */
export function installCommands(text: string): string[] {
  const commands: string[] = [];
  for (const line of text.split("\n")) {
    const spans = [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    for (const candidate of [...spans, line.replace(LEADER, "").replace(/\s+#.*$/, "")]) {
      for (const part of candidate.split(/&&|\|\||;/)) {
        const command = part.trim();
        if (INSTALL.test(command)) commands.push(command);
      }
    }
  }
  return commands;
}

/** Commands that pack or install the client kit, which is installed from this repository. */
export function isKitCommand(command: string): boolean {
  return /packages\/client|optstuff-client-|@optstuff\/client/.test(command);
}

export function kitInstallCommands(text: string): string[] {
  return installCommands(text).filter(isKitCommand);
}
