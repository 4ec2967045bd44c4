/**
 * Calls one tRPC request may carry (the client's batch link sends no more; the server refuses more
 * with 400): every call is counted against the account's windows, but one request still runs its
 * calls together.
 */
export const MAX_BATCH = 20;
