/**
 * A dependency loaded by its first use (a module's dynamic import, then its setup), shared by every
 * caller after; a failed load is tried again by the next caller rather than failing for good. Keeps
 * what a cold start never needs (sharp, the S3 SDK, better-auth, nodemailer) out of it.
 */
export function lazyOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
