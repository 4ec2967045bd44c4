import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "@commander-js/extra-typings";
import { signUrl } from "@optstuff/client";
import * as arg from "../arguments";
import { JSON_HELP, type Cli } from "../command-context";
import { CliError } from "../errors";

const NEEDED = ["OPTSTUFF_BASE_URL", "OPTSTUFF_PROJECT_SLUG", "OPTSTUFF_PUBLIC_KEY", "OPTSTUFF_SECRET_KEY"] as const;

/** Needs no database: it signs with a credentials file, so it works while the server runs. */
export function registerSign(program: Command, cli: Cli): void {
  program
    .command("sign")
    .description("print a signed URL for a source, with the credentials a key's .env block holds")
    .argument("<source>", "host/path of the original (https assumed), local/<path> or s3:<bucket>/<key>", arg.source)
    .option(
      "--operations <ops>",
      "comma-separated, as in the URL: w_640,f_auto (_ for none)",
      arg.operations,
      "w_640,f_auto",
    )
    .option("--expires-in <seconds>", "the URL stops working after this many seconds (default: never)", arg.seconds)
    .option("--credentials-file <file>", "a file of OPTSTUFF_… lines (default: <data dir>/quickstart.env)")
    .option("--base-url <url>", "sign for another address than the file's OPTSTUFF_BASE_URL", arg.baseUrl)
    .option("--json", JSON_HELP)
    .action(async (source, options, command) => {
      const ctx = cli.context(command, options);
      const file = options.credentialsFile ?? path.join(ctx.env().OPTSTUFF_DATA_DIR, "quickstart.env");
      const vars = readCredentials(file);
      const url = await signUrl({
        baseUrl: options.baseUrl ?? vars.OPTSTUFF_BASE_URL,
        projectSlug: vars.OPTSTUFF_PROJECT_SLUG,
        publicKey: vars.OPTSTUFF_PUBLIC_KEY,
        secretKey: vars.OPTSTUFF_SECRET_KEY,
        operations: options.operations,
        source,
        ...(options.expiresIn ? { expiresIn: options.expiresIn, expiryBucket: 1 } : {}),
      });
      ctx.out.result({ url }, () => url);
    });
}

function readCredentials(file: string): Record<(typeof NEEDED)[number], string> {
  if (!existsSync(file))
    throw new CliError(
      `No credentials file at ${file}: the embedded default writes it at first start (npm start); elsewhere save a key's .env block and pass --credentials-file`,
    );
  const vars = Object.fromEntries(
    // As a shell or dotenv reads it: an `export ` prefix and quotes around the value are not part of it.
    [...readFileSync(file, "utf8").matchAll(/^\s*(?:export\s+)?(OPTSTUFF_[A-Z_]+)=(.*?)\s*$/gm)].map((m) => [
      m[1]!,
      m[2]!.replace(/^(["'])(.*)\1$/, "$2"),
    ]),
  );
  const missing = NEEDED.filter((name) => !vars[name]);
  if (missing.length > 0) throw new CliError(`${file} lacks ${missing.join(", ")}`);
  return vars as Record<(typeof NEEDED)[number], string>;
}
