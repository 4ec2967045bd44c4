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
