import { formatBytes, formatCount } from "@/lib/format";
import type { StoreShare } from "@/server/result-store/store-share";

/**
 * One sentence on where a project's results are kept and how much of the store they take. The store
 * is shared by every project of the instance; a tenant is shown their own share, never its total.
 */
export function describeStoreShare(store: StoreShare | null): string {
  if (!store) return "No result store: results are kept in memory only and made again after a restart.";
  const where = store.kind === "s3" ? "S3-compatible bucket" : "files";
  if (!store.project)
    return `Result store (${where}, shared by every project of the instance): its share per project is not counted.`;
  const { bytes, objects } = store.project;
  return `Result store (${where}): this project's results take ${formatBytes(bytes)} in ${formatCount(objects)} results.`;
}
