/**
 * The command line: `npm run optstuff -- --help` lists the commands, `npm run optstuff -- <command>
 * --help` explains one. The program lives in src/cli.
 */
import { runCli } from "@/cli/main";

// Exits with the command's code even if a client it used keeps a handle open (stdout and stderr are
// written synchronously to files and pipes on Linux, so nothing printed is lost).
// A failure noticed on the way (the embedded database's lock lost) sets process.exitCode.
const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
process.exit(code || Number(process.exitCode ?? 0));
