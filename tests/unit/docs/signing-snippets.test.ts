import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { firstBlock as blockOf, GO_OFFLINE_ENV, runSnippet } from "../../support/doc-snippets";
import { need } from "../../support/services";
import { buildSignedUrl } from "../../support/signed-url";
import { SIGNING_VECTORS, VECTOR_KEYS } from "../../support/vectors";

const doc = readFileSync(new URL("../../../docs/signing.md", import.meta.url), "utf8");

// The vectors, plus one source that the vectors leave out: a trailing empty segment (Ruby's split
// drops it), the characters encodeURIComponent keeps but other escapers do not, and 4-byte UTF-8.
const cases = [
  ...SIGNING_VECTORS,
  {
    operations: "w_100,q_80",
    source: "cdn.example.com/d/a b+c!~*'()#?x=1&y=ü😀/",
    exp: 1700000000,
    signature: undefined,
  },
  // An upper-case scheme: its slashes are collapsed too (the server restores either case).
  { operations: "w_50", source: "HTTPS://cdn.example.com/A.jpg", signature: undefined },
];
const input = JSON.stringify({ keys: VECTOR_KEYS, cases });

const firstBlock = (lang: string) => blockOf(doc, lang);

// Each harness reads { keys, cases } on stdin and prints one URL per case.
const languages = [
  {
    lang: "python",
    bin: "python3" as const,
    files: (code: string) => ({
      "snippet.py": code,
      "main.py": `import json, sys
from snippet import sign_url
d = json.loads(sys.stdin.buffer.read())
k = d["keys"]
for c in d["cases"]:
    print(sign_url(k["baseUrl"], k["projectSlug"], k["publicKey"], k["secretKey"], c["operations"], c["source"], c.get("exp")))
`,
    }),
    command: ["python3", "-B", "main.py"],
  },
  {
    lang: "go",
    bin: "go" as const,
    files: (code: string) => ({
      "snippet.go": `package main\n\n${code}`,
      "main.go": `package main

import ("encoding/json"; "fmt"; "os")

func main() {
	var in struct {
		Keys  struct{ BaseUrl, ProjectSlug, PublicKey, SecretKey string }
		Cases []struct { Operations, Source string; Exp int64 }
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil { panic(err) }
	for _, c := range in.Cases {
		fmt.Println(SignURL(in.Keys.BaseUrl, in.Keys.ProjectSlug, in.Keys.PublicKey, in.Keys.SecretKey, c.Operations, c.Source, c.Exp))
	}
}
`,
    }),
    command: ["go", "run", "snippet.go", "main.go"],
    env: GO_OFFLINE_ENV,
  },
  {
    lang: "php",
    bin: "php" as const,
    files: (code: string) => ({
      "snippet.php": code.startsWith("<?php") ? code : `<?php\n${code}`,
      "main.php": `<?php
require __DIR__ . '/snippet.php';
$d = json_decode(file_get_contents('php://stdin'), true, 512, JSON_THROW_ON_ERROR);
$k = $d['keys'];
foreach ($d['cases'] as $c) {
    echo optstuff_sign_url($k['baseUrl'], $k['projectSlug'], $k['publicKey'], $k['secretKey'], $c['operations'], $c['source'], $c['exp'] ?? null), "\\n";
}
`,
    }),
    command: ["php", "main.php"],
  },
  {
    lang: "ruby",
    bin: "ruby" as const,
    files: (code: string) => ({
      "snippet.rb": code,
      // Under a C locale Ruby would tag stdin as US-ASCII; a real app hands the function UTF-8 strings.
      "main.rb": `require "json"
require_relative "snippet"
d = JSON.parse($stdin.read.force_encoding("UTF-8"))
k = d["keys"]
d["cases"].each { |c| puts optstuff_sign_url(k["baseUrl"], k["projectSlug"], k["publicKey"], k["secretKey"], c["operations"], c["source"], c["exp"]) }
`,
    }),
    command: ["ruby", "main.rb"],
  },
];

describe("docs/signing.md", () => {
  it("has a python, go, php and ruby block", () => {
    for (const { lang } of languages)
      expect(firstBlock(lang), `no \`\`\`${lang} block in docs/signing.md`).toBeDefined();
  });

  for (const { lang, bin, files, command, env } of languages) {
    const needs = need(bin);
    it.skipIf(needs.skip)(
      needs.title(`${lang} snippet builds the server's URL for every test vector`),
      () => {
        const code = firstBlock(lang);
        if (code === undefined) throw new Error(`no \`\`\`${lang} block in docs/signing.md`);
        const urls = runSnippet(lang, files(code), command, input, env);
        expect(urls, `${lang} snippet printed ${urls.length} lines for ${cases.length} cases`).toHaveLength(
          cases.length,
        );
        cases.forEach(({ operations, source, exp, signature }, i) => {
          const label = `${lang} snippet, case ${i + 1} (${operations}/${source}${exp === undefined ? "" : `?exp=${exp}`})`;
          expect(urls[i], label).toBe(buildSignedUrl({ ...VECTOR_KEYS, operations, source, exp }));
          if (signature !== undefined) expect(new URL(urls[i]!).searchParams.get("sig"), label).toBe(signature);
        });
      },
      60_000,
    );
  }
});
