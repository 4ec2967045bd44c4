import { describe, expect, it } from "vitest";
import { runCli } from "@/cli/main";

/** Runs one command line in process, as the terminal would see it. */
async function cli(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: { write: (text: string) => ((stdout += text), true) },
    stderr: { write: (text: string) => ((stderr += text), true) },
  });
  return { code, stdout, stderr };
}

/** A refusal is one line on stderr, names the command's help, and is never a stack trace. */
function expectOneLineRefusal(result: Awaited<ReturnType<typeof cli>>, words: string | RegExp) {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(result.stderr).toMatch(/^optstuff: /);
  expect(result.stderr).toMatch(words);
  expect(result.stderr).not.toMatch(/\n\s+at |Error:|ERR_/);
}

describe("the command line's conventions", () => {
  it("prints its help, and nothing else, when run with no arguments, --help or help", async () => {
    for (const argv of [[], ["--help"], ["help"], ["-h"]]) {
      const result = await cli(...argv);
      expect(result, argv.join(" ")).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toMatch(/^Usage: optstuff \[options\] \[command\]/);
      for (const command of [
        "teams",
        "projects",
        "keys",
        "sources",
        "referers",
        "purge",
        "reset-limits",
        "reseal",
        "sign",
        "doctor",
      ])
        expect(result.stdout).toContain(`\n  ${command}`);
    }
  });

  it("explains each command with <command> --help and help <command>", async () => {
    const create = await cli("keys", "create", "--help");
    expect(create.code).toBe(0);
    for (const option of [
      "--team <slug>",
      "--project <slug>",
      "--name <name>",
      "--expires-in-days <days>",
      "--per-minute <n>",
      "--per-day <n>",
      "--json",
    ])
      expect(create.stdout).toContain(option);
    const keys = await cli("help", "keys");
    expect(keys.code).toBe(0);
    for (const sub of ["list", "create", "revoke", "rotate"]) expect(keys.stdout).toContain(`  ${sub} `);
  });

  it("refuses an unknown option, an unknown command or a missing value in one line with exit 2", async () => {
    expectOneLineRefusal(await cli("--bogus"), "unknown option '--bogus' (optstuff --help)");
    expectOneLineRefusal(await cli("nonsense"), "unknown command 'nonsense'");
    expectOneLineRefusal(
      await cli("keys", "create", "--team"),
      "option '--team <slug>' argument missing (optstuff keys create --help)",
    );
    expectOneLineRefusal(
      await cli("sign", "local/photo.jpg", "--operations"),
      "option '--operations <ops>' argument missing",
    );
    expectOneLineRefusal(
      await cli("keys", "list", "--team", "acme", "--project", "blog", "--colour"),
      "unknown option '--colour'",
    );
  });

  it("selects what it changes only by explicit --team and --project, and never defaults to a command", async () => {
    expectOneLineRefusal(await cli("bootstrap"), "required option '--team <slug>' not specified");
    expectOneLineRefusal(await cli("bootstrap", "--team", "acme"), "required option '--project <slug>' not specified");
    expectOneLineRefusal(await cli("purge", "--team", "acme"), "required option '--project <slug>' not specified");
    expectOneLineRefusal(
      await cli("keys", "create", "--team", "acme", "--project", "blog"),
      "required option '--name <name>'",
    );
    expectOneLineRefusal(
      await cli("sources", "set", "--project", "blog", "a.example"),
      "required option '--team <slug>'",
    );
  });

  it("prints a group's help when it is named alone, as help does (exit 0), and refuses an unknown subcommand", async () => {
    // `optstuff teams` printed its help, then exited 2 as if refused.
    for (const group of ["teams", "projects", "keys", "sources", "referers"]) {
      const alone = await cli(group);
      expect(alone, group).toMatchObject({ code: 0, stderr: "" });
      expect(alone.stdout).toBe((await cli(group, "--help")).stdout);
      expect(alone.stdout).toMatch(new RegExp(`^Usage: optstuff ${group} \\[options\\] \\[command\\]`));
    }
    expectOneLineRefusal(
      await cli("teams", "lsit"),
      "optstuff: unknown command 'lsit'; optstuff teams has list (optstuff teams --help)",
    );
    expectOneLineRefusal(
      await cli("keys", "craete", "--team", "acme", "--project", "blog"),
      "unknown command 'craete'; optstuff keys has list, create, revoke, rotate, caps (optstuff keys --help)",
    );
    // A group whose default is show: a mistyped subcommand is named as such, not taken for show's argument.
    expectOneLineRefusal(
      await cli("sources", "shwo", "--team", "acme", "--project", "blog"),
      "unknown command 'shwo'; optstuff sources has show, set (optstuff sources --help)",
    );
    expect(await cli("keys", "help", "create")).toMatchObject({ code: 0, stderr: "" });
    expect((await cli("keys", "help", "create")).stdout).toBe((await cli("keys", "create", "--help")).stdout);
    expectOneLineRefusal(await cli("teams", "--json"), "unknown option '--json' (optstuff teams --help)");
    // At the top, commander's suggestion stays on the refusal's one line.
    expectOneLineRefusal(await cli("teem"), "unknown command 'teem' (Did you mean teams?) (optstuff --help)");
  });

  it("says what to purge or set instead of purging everything or emptying a list", async () => {
    expectOneLineRefusal(
      await cli("purge", "--team", "acme", "--project", "blog"),
      "Say what to purge: --source <url> for one source, or --all",
    );
    expectOneLineRefusal(
      await cli("purge", "--team", "acme", "--project", "blog", "--all", "--source", "local/a.jpg"),
      "either --source or --all",
    );
    expectOneLineRefusal(
      await cli("sources", "set", "--team", "acme", "--project", "blog"),
      "Give the new list, or --none to empty it",
    );
    expectOneLineRefusal(
      await cli("referers", "set", "--team", "acme", "--project", "blog", "--none", "a.example"),
      "either hosts or --none",
    );
  });

  it("checks values as the dashboard's forms do, before anything is opened", async () => {
    const create = ["keys", "create", "--team", "acme", "--project", "blog", "--name", "n"];
    expectOneLineRefusal(
      await cli(...create, "--expires-in-days", "soon"),
      "argument 'soon' is invalid. Enter a whole number of days",
    );
    expectOneLineRefusal(await cli(...create, "--expires-in-days", "0"), "At least 1 day");
    for (const bad of ["0", "1.5", "1e3", "-4", "", "100001"])
      expectOneLineRefusal(await cli(...create, "--per-minute", bad), "Enter a whole number from 1 to 100,000");
    expectOneLineRefusal(await cli(...create, "--per-day", "x"), "Enter a whole number from 1 to 100,000,000");
    expectOneLineRefusal(
      await cli("keys", "create", "--team", "Acme Co", "--project", "blog", "--name", "n"),
      "Slug may contain lowercase letters",
    );
    expectOneLineRefusal(
      await cli("keys", "create", "--team", "acme", "--project", "blog", "--name", " "),
      "Name is required",
    );
    expectOneLineRefusal(
      await cli("keys", "create", "--team", "acme", "--project", "blog", "--name", "n".repeat(81)),
      "at most 80 characters",
    );
    const key = ["--team", "acme", "--project", "blog", "--key"];
    expectOneLineRefusal(await cli("keys", "revoke", ...key, "sk_secret"), "Not a public key");
    expectOneLineRefusal(
      await cli("keys", "rotate", ...key, "pk_aaaaaaaaaaaaaaaaaaaaaa", "--grace-hours", "721"),
      "at most 720 hours",
    );
    expectOneLineRefusal(await cli("reset-limits", "--key", "pk_short"), "Not a public key");
    expectOneLineRefusal(
      await cli("reset-limits", "--key", "pk_AAAAAAAAAAAAAAAAAAAAAA"),
      "required option '--team <slug>'",
    );
    expectOneLineRefusal(
      await cli("sign", "local/a.jpg", "--base-url", "ftp://x"),
      "Enter the address the image API answers at",
    );
  });

  it("refuses operations and sources as the image route's parser does", async () => {
    expectOneLineRefusal(
      await cli("sign", "local/photo.jpg", "--operations", "w_400,zoom_2"),
      'Unknown operation "zoom_2"',
    );
    expectOneLineRefusal(await cli("sign", "local/photo.jpg", "--operations", "w_0"), "'w_0' is invalid");
    expectOneLineRefusal(
      await cli("sign", "ftp://example.com/a.jpg"),
      "value 'ftp://example.com/a.jpg' is invalid for argument 'source'",
    );
    expectOneLineRefusal(
      await cli("sign", "local/photo.jpg", "--expires-in", "later"),
      "Enter a whole number of seconds",
    );
  });
});
