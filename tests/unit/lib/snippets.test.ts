import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { transform } from "esbuild";
import { envBlock, exampleSource, nextImageSnippet, nextjsSnippet, nodeSnippet } from "@/lib/snippets";
import { generateKeyPair } from "@/server/signing";
import { buildSignedUrl } from "../../support/signed-url";

describe("dashboard snippets", () => {
  it("the Node snippet, run by node with the .env block, prints the URL the server's own signer builds", () => {
    const pair = generateKeyPair();
    const target = { baseUrl: "https://img.example.com", projectSlug: "shop", ...pair };
    const dir = mkdtempSync(path.join(os.tmpdir(), "snippet-"));
    try {
      // The snippet as shown, plus a source written as a full URL with characters to encode.
      writeFileSync(
        path.join(dir, "optstuff.mjs"),
        `${nodeSnippet(["images.example.com"])}\nconsole.log(optstuffUrl("https://images.example.com/a b%20c.jpg", "w_100"));\n`,
      );
      writeFileSync(path.join(dir, ".env"), envBlock(target));
      const printed = execFileSync(process.execPath, ["--env-file=.env", "optstuff.mjs"], {
        cwd: dir,
        encoding: "utf8",
      })
        .trim()
        .split("\n");
      expect(printed).toEqual([
        buildSignedUrl({ ...target, operations: "w_800,f_auto", source: "images.example.com/photo.jpg" }),
        buildSignedUrl({ ...target, operations: "w_100", source: "https://images.example.com/a b%20c.jpg" }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps the secret out of the placeholder block and the Next.js snippet on the server", () => {
    expect(envBlock({ baseUrl: "b", projectSlug: "p", publicKey: "pk_x" })).not.toMatch(/sk_[A-Za-z0-9]/);
    expect(nextjsSnippet(["local"])).toContain('import "server-only"');
  });

  it("signs, in every snippet, a source the project allows: its first host, a name under its wildcard, or its local folder", () => {
    const cases: Array<[hosts: string[], source: string]> = [
      [["local", "cdn.example.net", "*.example.org"], "cdn.example.net/photo.jpg"],
      [["http://media.example.net:8080"], "http://media.example.net:8080/photo.jpg"],
      [["*.example.org"], "images.example.org/photo.jpg"],
      [["*"], "images.example.com/photo.jpg"],
      [["local"], "local/photo.jpg"],
    ];
    for (const [hosts, source] of cases) {
      expect(exampleSource(hosts), hosts.join(" ")).toBe(source);
      for (const snippet of [nodeSnippet(hosts), nextjsSnippet(hosts)]) {
        expect(snippet, hosts.join(" ")).toContain(`optstuffUrl("${source}", "w_800,f_auto")`);
        if (!hosts.includes("*")) expect(snippet, hosts.join(" ")).not.toContain("images.example.com");
      }
    }
    const remote = nextImageSnippet(["cdn.example.net"]);
    expect(remote).toContain('allowedHosts: ["cdn.example.net"]');
    expect(remote).toContain('<Image src="https://cdn.example.net/photo.jpg"');
    expect(remote).not.toContain("images.example.com");
    // Under a wildcard only: a name it admits, and the note to list the real ones.
    expect(nextImageSnippet(["*.example.org"])).toContain('allowedHosts: ["images.example.org"]');
    // The kit's route signs remote images: with the local folder only, it says what to add instead of
    // signing a host the project refuses.
    const local = nextImageSnippet(["local"]);
    expect(local).toContain("allowedHosts: []");
    expect(local).not.toContain("images.example.com");
    expect(local).not.toContain("<Image src=");
    expect(local).toMatch(/allows no remote host/);
    // Nothing allowed yet: no snippet pretends an image would be served.
    expect(exampleSource([])).toBeNull();
    for (const snippet of [nodeSnippet([]), nextjsSnippet([]), nextImageSnippet([])])
      expect(snippet).toMatch(/allows no (source|remote host) yet/);
  });

  it("the next/image snippet's signing route, run with the kit and the .env block, redirects to a URL the server verifies", async () => {
    const pair = generateKeyPair();
    const target = { baseUrl: "https://img.example.com", projectSlug: "shop", ...pair };
    // As the project stores them: a scheme and port, a wildcard, and the local folder.
    const snippet = nextImageSnippet(["local", "https://cdn.example.com:8443", "*.example.org", "images.example.com"]);
    expect(snippet).toContain('allowedHosts: ["cdn.example.com:8443","images.example.com"]');
    expect(snippet).toContain("The project also allows *.example.org");
    const route = snippet.slice(snippet.indexOf("// app/api/image/route.ts"), snippet.indexOf("// Then <Image"));
    // Inside the repository, so the kit resolves from its node_modules as an app's would.
    const dir = mkdtempSync(path.join(process.cwd(), ".snippet-"));
    const saved = { ...process.env };
    try {
      const file = path.join(dir, "route.mjs");
      writeFileSync(file, (await transform(route, { loader: "ts", format: "esm" })).code);
      for (const line of envBlock(target).split("\n")) {
        const [name, value] = line.split("=");
        process.env[name!] = value;
      }
      const { GET } = (await import(file)) as { GET(request: Request): Promise<Response> };
      const src = "https://images.example.com/photo.jpg";
      const response = await GET(new Request(`https://www.example.com/api/image?src=${encodeURIComponent(src)}&w=640`));
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get("location")!);
      const exp = Number(location.searchParams.get("exp"));
      const operations = decodeURIComponent(location.pathname.split("/")[4]!);
      expect(location.toString()).toBe(buildSignedUrl({ ...target, operations, source: src, exp }));
      const refused = await GET(
        new Request("https://www.example.com/api/image?src=https%3A%2F%2Fevil.example%2Fx.jpg&w=640"),
      );
      expect(refused.status).toBe(400);
    } finally {
      process.env = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
