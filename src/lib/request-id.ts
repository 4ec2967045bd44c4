/**
 * Request ids are v4 UUIDs from randomUUID(), stored in lower case. One pattern for the procedure's
 * input and the field that takes a pasted id, so what the field accepts the server finds.
 */
export const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const REQUEST_ID_HINT = "A request id looks like 5f0e7c1a-3b9d-4c62-9a57-0d8e2f4b6a13";

/** A pasted id as stored (trimmed, lower case), or undefined if it is not one. */
export function normaliseRequestId(text: string): string | undefined {
  const id = text.trim().toLowerCase();
  return REQUEST_ID.test(id) ? id : undefined;
}
