import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { envBlock, nextjsSnippet, nodeSnippet } from "@/lib/snippets";
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
        `${nodeSnippet()}\nconsole.log(optstuffUrl("https://images.example.com/a b%20c.jpg", "w_100"));\n`,
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
    expect(nextjsSnippet()).toContain('import "server-only"');
  });
});
