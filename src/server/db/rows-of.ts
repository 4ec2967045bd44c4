/** The rows of a raw `db.execute`: postgres.js answers an array of rows, PGlite a result with `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : ((result as { rows: T[] }).rows ?? []);
}
