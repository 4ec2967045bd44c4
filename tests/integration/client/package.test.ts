import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGNING_VECTORS, VECTOR_KEYS } from "../../support/vectors";
import { buildSignedUrl } from "../../support/signed-url";

/**
 * What another app gets from the kit's tarball: packed (built by its prepare script), installed into a
 * fresh project with no access to this repository's sources, imported by plain Node and type-checked by
 * TypeScript through the package's exports map. Offline; documented-install.test.ts runs the docs' own
 * install lines, which fetch the kit's dependencies from the npm registry.
 */
const PACKAGE_DIR = path.resolve("packages/client");
const TSC = path.resolve("node_modules/typescript/bin/tsc");
let work: string;
let consumer: string;
let packedFiles: string[];

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" },
  });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), "optstuff-pack-"));
  const pack = run("npm", ["pack", "--json", "--pack-destination", work], PACKAGE_DIR);
  expect(pack.status, pack.output).toBe(0);
  const [packed] = JSON.parse(pack.output.slice(pack.output.indexOf("["), pack.output.lastIndexOf("]") + 1)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  packedFiles = packed!.files.map((file) => file.path).sort();
  consumer = path.join(work, "app");
  mkdirSync(consumer);
  writeFileSync(
    path.join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  // The kit's dependencies come packed from this repository's node_modules: offline, npm has their
  // tarballs but not the registry's metadata a name would need (npm ci reads the lockfile only).
  const dependencies = Object.keys(
    (
      JSON.parse(readFileSync(path.join(PACKAGE_DIR, "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      }
    ).dependencies,
  );
  const tarballs = dependencies.map((name) => {
    const packedDependency = run(
      "npm",
      ["pack", "--json", "--pack-destination", work],
      path.resolve("node_modules", name),
    );
    expect(packedDependency.status, packedDependency.output).toBe(0);
    const [{ filename }] = JSON.parse(
      packedDependency.output.slice(packedDependency.output.indexOf("["), packedDependency.output.lastIndexOf("]") + 1),
    ) as [{ filename: string }];
    return path.join(work, filename);
  });
  const install = run(
    "npm",
    ["install", "--offline", "--ignore-scripts", ...tarballs, path.join(work, packed!.filename)],
    consumer,
  );
  expect(install.status, install.output).toBe(0);
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("@optstuff/client as a package", () => {
  it("ships the built modules, their types and the README, not the sources", () => {
    for (const entry of ["index", "next", "adapters", "operations", "sign", "placeholder"]) {
      expect(packedFiles).toContain(`dist/${entry}.js`);
      expect(packedFiles).toContain(`dist/${entry}.d.ts`);
    }
    expect(packedFiles).toEqual(expect.arrayContaining(["README.md", "package.json"]));
    expect(packedFiles.filter((file) => file.startsWith("src/") || file.endsWith("tsconfig.json"))).toEqual([]);
  });

  it("imports in plain Node through its exports and signs the contract's vectors", () => {
    const script = `
      import { signUrl, buildOperations } from "@optstuff/client";
      import { createImageLoader, createSigningRoute } from "@optstuff/client/next";
      import { createNuxtImageProvider, createUnpicTransformer } from "@optstuff/client/adapters";
      if (typeof createNuxtImageProvider().getImage !== "function" || !createUnpicTransformer()("https://a.example/b.jpg", { width: 8 }).includes("w=8")) process.exit(3);
      const keys = ${JSON.stringify(VECTOR_KEYS)};
      const vectors = ${JSON.stringify(SIGNING_VECTORS)};
      const urls = [];
      for (const v of vectors) {
        urls.push(await signUrl({ ...keys, operations: v.operations, source: v.source, ...(v.exp ? { expiresIn: 60, expiryBucket: 1, now: (v.exp - 60) * 1000 } : {}) }));
      }
      console.log(JSON.stringify({ urls, ops: buildOperations({ width: 640, format: "webp" }), loader: createImageLoader()({ src: "https://a.example/b.jpg", width: 64 }), route: typeof createSigningRoute }));
    `;
    writeFileSync(path.join(consumer, "check.mjs"), script);
    const result = run(process.execPath, ["check.mjs"], consumer);
    expect(result.status, result.output).toBe(0);
    const printed = JSON.parse(result.output.trim().split("\n")[0]!) as {
      urls: string[];
      ops: string;
      loader: string;
      route: string;
    };
    expect(printed.urls).toEqual(
      SIGNING_VECTORS.map((v) =>
        buildSignedUrl({ ...VECTOR_KEYS, operations: v.operations, source: v.source, exp: v.exp }),
      ),
    );
    expect(printed).toMatchObject({
      ops: "w_640,f_webp",
      loader: "/api/image?src=https%3A%2F%2Fa.example%2Fb.jpg&w=64",
      route: "function",
    });
  });

  it("carries types a consumer's compiler checks against", () => {
    const check = (source: string) => {
      writeFileSync(path.join(consumer, "consumer.ts"), source);
      return run(
        process.execPath,
        [
          TSC,
          "--noEmit",
          "--strict",
          "--module",
          "nodenext",
          "--moduleResolution",
          "nodenext",
          "--target",
          "es2022",
          "--lib",
          "es2022,dom",
          "consumer.ts",
        ],
        consumer,
      );
    };
    const good = check(`
      import { signUrl, type Operations } from "@optstuff/client";
      import { createSigningRoute } from "@optstuff/client/next";
      const operations: Operations = { width: 640, fit: "cover", format: "avif" };
      export const url: Promise<string> = signUrl({ baseUrl: "https://img.example.com", projectSlug: "p", publicKey: "pk_x", secretKey: "sk_x", operations, source: "a.example/b.jpg" });
      export const GET: (request: Request) => Promise<Response> = createSigningRoute({ baseUrl: "", projectSlug: "", publicKey: "", secretKey: "", allowedHosts: [] });
    `);
    expect(good.status, good.output).toBe(0);
    // The same program with a misspelt format must not compile: the types are real, not `any`.
    const bad = check(
      `import { buildOperations } from "@optstuff/client";\nexport const ops = buildOperations({ width: 640, format: "jpg" });\n`,
    );
    expect(bad.status).not.toBe(0);
    expect(bad.output).toMatch(/"jpg"/);
  });
});
