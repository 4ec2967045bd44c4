/**
 * Whether a database error is a unique-constraint violation (SQLSTATE 23505), on PostgreSQL and PGlite
 * alike. Drizzle wraps driver errors, so the code may sit one `cause` down.
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  for (let current = error, depth = 0; current && depth < 3; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; constraint_name?: unknown; cause?: unknown };
    if (candidate.code === "23505") {
      const name = candidate.constraint ?? candidate.constraint_name;
      return constraint === undefined || name === undefined || name === constraint;
    }
    current = candidate.cause;
  }
  return false;
}

/** The database's own message: drizzle's wrapper names the query (which says nothing here) and keeps it as `cause`. */
export function databaseMessage(error: unknown): string {
  let current = error;
  for (let depth = 0; depth < 3 && current instanceof Error && current.cause instanceof Error; depth++) {
    current = current.cause;
  }
  return current instanceof Error ? current.message : String(error);
}
