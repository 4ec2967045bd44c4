/**
 * The dashboard's own client asks, with this header, for refusals as data: answered 200 with the same
 * error body (its `data.httpStatus` still says 400, 404, 409…). A browser logs every 4xx answer as a
 * console error, and a refused form is an expected answer the page shows at its field, not a fault.
 * Server errors keep their 5xx; clients without the header (scripts, curl) keep every status.
 */
export const REFUSALS_AS_DATA = { header: "x-optstuff-refusals", value: "as-data" } as const;
