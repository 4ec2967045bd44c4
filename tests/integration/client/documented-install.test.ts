import { spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SIGNING_VECTORS, VECTOR_KEYS } from "../../support/vectors";
import { buildSignedUrl } from "../../support/signed-url";
import { installSources, kitInstallCommands } from "../../support/install-lines";
import { need } from "../../support/services";

/**
 * The kit's install lines exactly as the docs and the dashboard give them, run in a shell in a fresh
 * app beside this repository (the docs' `../optstuff`), against the npm registry as users have it: the
 * kit's one dependency, thumbhash, comes from there. package.test.ts checks the package's contents and
 * types offline; this checks that what people are told to type installs it.
 */
const REPOSITORY = process.cwd();

/** What `npm run` adds to its scripts' environment, which a user's shell does not have. */
const RUN_VARIABLES = /^(?:npm_lifecycle_|npm_package_|npm_config_local_prefix$|npm_command$|npm_execpath$|INIT_CWD$)/i;

/**
 * A user's shell on a fresh machine: their npm settings (a registry mirror or a proxy set in the
 * environment still applies), but none of `npm run`'s variables or this repository's bins, and an
 * empty npm cache, so thumbhash really comes from the registry.
 */
function freshShell(cache: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (RUN_VARIABLES.test(name)) delete env[name];
  env.PATH = (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((entry) => !entry.includes("node_modules"))
    .join(path.delimiter);
  return {
    ...env,
    npm_config_cache: cache,
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };
}

function shell(command: string, cwd: string, env: NodeJS.ProcessEnv) {
  const result = spawnSync("sh", ["-c", command], { cwd, env, encoding: "utf8", timeout: 120_000 });
  return { status: result.status, output: `$ ${command}\n${result.stdout}\n${result.stderr}` };
}

// Without the registry this cannot run: the suite then skips, and `npm test` lists the need.
const registry = need("npm-registry");

// Where the kit's install is shown, grouped by the commands given: one run per distinct set of lines.
const variants = new Map<string, { commands: string[]; lines: string; shownIn: string }>();
for (const source of installSources()) {
  const commands = kitInstallCommands(source.text);
  if (commands.length === 0) continue;
  const lines = commands.join(" && ");
  const shown = variants.get(lines);
  variants.set(lines, { commands, lines, shownIn: shown ? `${shown.shownIn}, ${source.name}` : source.name });
}

const workDirs: string[] = [];
afterAll(() => {
  for (const work of workDirs) {
    // The link to the repository goes first, so removing the folder can never reach into the repository.
    unlinkSync(path.join(work, "optstuff"));
    rmSync(work, { recursive: true, force: true });
  }
});

describe.skipIf(registry.skip)(registry.title("the kit installed as the docs say"), () => {
  it("is shown somewhere", () => {
    expect(variants.size).toBeGreaterThan(0);
  });

  it.each([...variants.values()])(
    "runs `$lines` ($shownIn) in a new app, which then signs the contract's vector in plain Node",
    ({ commands }) => {
      const work = mkdtempSync(path.join(os.tmpdir(), "optstuff-documented-"));
      symlinkSync(REPOSITORY, path.join(work, "optstuff"));
      workDirs.push(work);
      const app = path.join(work, "app");
      mkdirSync(app);
      writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
      const env = freshShell(path.join(work, "npm-cache"));
      for (const command of commands) {
        const result = shell(command, app, env);
        expect(result.status, result.output).toBe(0);
      }

      // Installed as a copy from the tarball, not linked to the repository's workspace.
      expect(lstatSync(path.join(app, "node_modules/@optstuff/client")).isSymbolicLink()).toBe(false);
      const manifest = JSON.parse(readFileSync(path.join(app, "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      };
      expect(manifest.dependencies["@optstuff/client"]).toMatch(/^file:.*\.tgz$/);
      // The kit's dependency came with it, at the version the kit pins.
      const version = (folder: string) =>
        (JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8")) as { version: string }).version;
      const kit = JSON.parse(readFileSync(path.join(REPOSITORY, "packages/client/package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      };
      expect(version(path.join(app, "node_modules/thumbhash"))).toBe(kit.dependencies.thumbhash);

      const vector = SIGNING_VECTORS.find((v) => v.exp !== undefined)!;
      // Importing the package root loads placeholder.js, which imports thumbhash from the registry.
      writeFileSync(
        path.join(app, "sign.mjs"),
        `import { signUrl } from "@optstuff/client";
        console.log(await signUrl({ ...${JSON.stringify(VECTOR_KEYS)}, operations: ${JSON.stringify(vector.operations)},
          source: ${JSON.stringify(vector.source)}, expiresIn: 60, expiryBucket: 1, now: ${(vector.exp! - 60) * 1000} }));`,
      );
      const signed = spawnSync(process.execPath, ["sign.mjs"], { cwd: app, env, encoding: "utf8" });
      expect(signed.status, signed.stderr).toBe(0);
      const url = signed.stdout.trim();
      expect(new URL(url).searchParams.get("sig")).toBe(vector.signature);
      expect(url).toBe(buildSignedUrl({ ...VECTOR_KEYS, ...vector }));
    },
    180_000,
  );
});
