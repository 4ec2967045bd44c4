import type { RangeInput } from "./range-picker";

// What the usage pages show before the user changes anything. A plain module: the server page
// prefetches exactly these inputs, and the client components start from them, so the queries match.

/** Since the first request, at most 30 days: a new project's first day fills the chart. */
export const INITIAL_RANGE: RangeInput = { preset: "recent" };

/** Rows per page of the request log. */
export const REQUEST_LOG_PAGE = 25;

/** The request log's first page: every status, newest first. */
export function firstRequestLogPage(scope: { teamSlug: string; projectSlug: string }, range: RangeInput) {
  return { ...scope, range, status: undefined, requestId: undefined, before: undefined, limit: REQUEST_LOG_PAGE };
}
