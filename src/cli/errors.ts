/**
 * A refusal the command line words itself. Exit codes: 2 when what was typed (or the environment it
 * runs in) is wrong, 1 when it could not be done now (the database in use, a check that failed).
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/**
 * The innermost cause's message: a driver wraps "connect ECONNREFUSED 127.0.0.1:5432" in "Failed
 * query: select …", and only the former tells an operator what to fix.
 */
export function rootMessage(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
