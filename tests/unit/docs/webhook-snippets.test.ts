import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { firstBlock as blockOf, GO_OFFLINE_ENV, runSnippet } from "../../support/doc-snippets";
import { newWebhookSecret, signWebhook } from "@/server/webhooks/signing";
import { need } from "../../support/services";

/**
 * docs/webhooks.md's verification functions, run in their languages against signatures the server's
 * own signing made: the right secret verifies; another secret, a changed body, an old or a future
 * timestamp, a malformed one, and a header without a v1 entry do not; a header listing two signatures
 * (a secret being replaced) verifies by either.
 */
const doc = readFileSync(new URL("../../../docs/webhooks.md", import.meta.url), "utf8");
const firstBlock = (lang: string) => blockOf(doc, lang);

const secret = newWebhookSecret();
const other = newWebhookSecret();
const now = 1_796_112_000;
const body = JSON.stringify({
  type: "webhook.test",
  timestamp: "2026-12-01T08:00:00.000Z",
  data: { name: "Ünïcode ✓" },
});
const signed = (at: number, key = secret, text = body) => signWebhook(key, "msg_test_1", new Date(at * 1000), text);
const base = signed(now);
const cases = [
  { name: "signed now", headers: base, body, expected: true },
  { name: "signed 4 minutes ago", headers: signed(now - 240), body, expected: true },
  { name: "another secret", headers: signed(now, other), body, expected: false },
  { name: "a changed body", headers: base, body: body.replace("test", "tesT"), expected: false },
  { name: "signed 10 minutes ago", headers: signed(now - 600), body, expected: false },
  { name: "signed 10 minutes ahead", headers: signed(now + 600), body, expected: false },
  { name: "a malformed timestamp", headers: { ...base, "webhook-timestamp": `${now}x` }, body, expected: false },
  {
    name: "no v1 entry",
    headers: { ...base, "webhook-signature": base["webhook-signature"].replace("v1,", "v2,") },
    body,
    expected: false,
  },
  {
    name: "two signatures, the right one second",
    headers: {
      ...base,
      "webhook-signature": `${signed(now, other)["webhook-signature"]} ${base["webhook-signature"]}`,
    },
    body,
    expected: true,
  },
].map((c) => ({
  ...c,
  secret,
  id: c.headers["webhook-id"],
  timestamp: c.headers["webhook-timestamp"],
  signature: c.headers["webhook-signature"],
  now,
}));
const input = JSON.stringify(cases);

// Each harness reads the cases on stdin and prints true or false per case.
const languages = [
  {
    lang: "js",
    bin: null,
    files: (code: string) => ({
      "snippet.mjs": code,
      "main.mjs": `import { verifyWebhook } from "./snippet.mjs";
const cases = JSON.parse(await new Response(process.stdin).text());
for (const c of cases) console.log(verifyWebhook(c.secret, c.id, c.timestamp, c.signature, Buffer.from(c.body), c.now));
`,
    }),
    command: ["node", "main.mjs"],
  },
  {
    lang: "python",
    bin: "python3" as const,
    files: (code: string) => ({
      "snippet.py": code,
      "main.py": `import json, sys
from snippet import verify_webhook
for c in json.loads(sys.stdin.buffer.read()):
    print("true" if verify_webhook(c["secret"], c["id"], c["timestamp"], c["signature"], c["body"].encode(), c["now"]) else "false")
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

import ("encoding/json"; "fmt"; "os"; "time")

func main() {
	var cases []struct{ Secret, Id, Timestamp, Signature, Body string; Now int64 }
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil { panic(err) }
	for _, c := range cases {
		fmt.Println(VerifyWebhook(c.Secret, c.Id, c.Timestamp, c.Signature, []byte(c.Body), time.Unix(c.Now, 0)))
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
foreach (json_decode(file_get_contents('php://stdin'), true, 512, JSON_THROW_ON_ERROR) as $c) {
    echo verify_webhook($c['secret'], $c['id'], $c['timestamp'], $c['signature'], $c['body'], $c['now']) ? "true" : "false", "\\n";
}
`,
    }),
    command: ["php", "main.php"],
  },
];

describe("docs/webhooks.md", () => {
  it("has a js, python, go and php block", () => {
    for (const { lang } of languages) expect(firstBlock(lang), `no \`\`\`${lang} block`).toBeDefined();
  });

  for (const { lang, bin, files, command, env } of languages) {
    const needs = bin ? need(bin) : need();
    it.skipIf(needs.skip)(
      needs.title(`${lang} snippet accepts the server's signatures and refuses the rest`),
      () => {
        const answers = runSnippet(`webhook-${lang}`, files(firstBlock(lang)!), command, input, env);
        expect(answers).toHaveLength(cases.length);
        cases.forEach((c, i) => expect(answers[i], `${lang}: ${c.name}`).toBe(String(c.expected)));
      },
      60_000,
    );
  }
});
