import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { SERVICE_FREE } from "../../../tests/support/service-free.mjs";

/**
 * CI's pass with PostgreSQL, Redis and S3 leaves out the files in SERVICE_FREE. That is only sound
 * while none of them can notice the services: a file that starts to (through a helper of
 * tests/support, or src/env.ts, which reads the services' settings) must leave the list, or it would
 * quietly stop being tested against them. The walk follows imports, and the imports of scripts a
 * file hands to `node --eval` (a child started without `env` inherits the services' variables); it
 * refuses a file that passes its environment on whole. A child started from a script file with an
 * environment of its own (the command line's tests) is not followed: keep such files off the list.
 */
const root = path.resolve(__dirname, "../../..");
/** The variables the test passes differ by, and the module that reads the product's settings. */
const PASS_VARIABLES = [
  "TEST_DATABASE_URL",
  "TEST_S3_ENDPOINT",
  "TEST_REDIS_URL",
  "UPSTASH_REDIS_REST_URL",
  "TEST_REQUIRE_SERVICES",
];
const SETTINGS = path.join(root, "src/env.ts");

function resolveImport(from: string, specifier: string): string | undefined {
  const base = specifier.startsWith("@/")
    ? path.join(root, "src", specifier.slice(2))
    : specifier.startsWith(".")
      ? path.resolve(path.dirname(from), specifier)
      : undefined;
  if (!base) return undefined;
  const candidates = [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    `${base}.mts`,
    base.replace(/\.js$/, ".ts"),
    path.join(base, "index.ts"),
  ];
  return candidates.find(
    (candidate) => existsSync(candidate) && !candidate.endsWith(path.sep) && path.extname(candidate),
  );
}

/**
 * The modules a script run by `node --eval` (in a string: no parser sees its imports) loads from the
 * project, named from the project's root, where such a child runs.
 */
function scriptImports(text: string): string[] {
  return [...text.matchAll(/import\(\s*["'`](\.\/(?:src|scripts|tests)\/[^"'`]+)["'`]\s*\)/g)].map((m) => m[1]!);
}

/** What the file, through its imports within the project, could learn of the services: empty when nothing. */
function serviceReach(file: string): string[] {
  const reached: string[] = [];
  const seen = new Set<string>();
  const queue = [path.join(root, file)];
  for (let module = queue.shift(); module; module = queue.shift()) {
    if (seen.has(module)) continue;
    seen.add(module);
    const name = path.relative(root, module);
    if (module === SETTINGS) reached.push(`${name} (the product's settings)`);
    const text = readFileSync(module, "utf8");
    for (const variable of PASS_VARIABLES) if (text.includes(variable)) reached.push(`${name} reads ${variable}`);
    if (text.includes("...process.env") || /env:\s*process\.env\b/.test(text)) {
      reached.push(`${name} hands its environment to a process`);
    }
    const specifiers = ts.preProcessFile(text, true, true).importedFiles.map((imported) => imported.fileName);
    const imports = [
      ...specifiers.map((specifier) => [module, specifier] as const),
      // A child process started with no `env` inherits the services' variables: what it runs is walked too.
      ...scriptImports(text).map((specifier) => [path.join(root, "script.ts"), specifier] as const),
    ];
    for (const [from, specifier] of imports) {
      const next = resolveImport(from, specifier);
      if (next) queue.push(next);
      else if (specifier.startsWith(".") || specifier.startsWith("@/")) {
        reached.push(`${name} imports ${specifier}, which the walk cannot find`);
      }
    }
  }
  return reached;
}

describe("the integration files CI runs once, without services", () => {
  it.each(SERVICE_FREE)("%s reaches no service, by any import", (file) => {
    expect(existsSync(path.join(root, file)), `${file} does not exist`).toBe(true);
    expect(serviceReach(file)).toEqual([]);
  });

  it("would see a file that reaches the services through a helper, and one that reads the settings", () => {
    expect(serviceReach("tests/integration/image/isolation.test.ts")).toEqual(
      expect.arrayContaining([
        "src/env.ts (the product's settings)",
        "tests/support/database.ts reads TEST_DATABASE_URL",
      ]),
    );
    expect(serviceReach("tests/integration/client/package.test.ts")).toEqual([
      "tests/integration/client/package.test.ts hands its environment to a process",
    ]);
    // Through a script a child process runs: bench/raise-key-limits.ts reads the settings.
    expect(scriptImports('await import("./src/env.ts"); import("./bench/x.ts")')).toEqual(["./src/env.ts"]);
  });
});
