import type { ResultStore, StoreSize } from "./types";

/**
 * What a tenant's pages show of the result store: where results are kept, and their project's share.
 * Never the whole store's size: every project of the instance shares the store, so its size tells one
 * tenant how much all the others serve (the operator reads it from /api/metrics).
 */
export interface StoreShare {
  kind: ResultStore["kind"];
  /** The project's results; null when the store cannot count them without a listing (S3). */
  project: StoreSize | null;
}

export function storeShare(store: ResultStore | null, projectId: string): StoreShare | null {
  return store ? { kind: store.kind, project: store.projectSize(projectId) } : null;
}
