/** How current the metered numbers are, for the dashboard's usage pages. */
export interface MeteringFreshness {
  /** usage_record holds every request served before this instant (the last successful flush's cutoff); null before any. */
  meteredUpTo: Date | null;
  /** The last flush failed; the schedule retries it. */
  lastFlushFailed: boolean;
  /**
   * The longest a served request takes to reach usage_record under this server's own schedule; null
   * when the flush route is called from outside (Vercel Cron, say), whose schedule this server cannot see.
   */
  appearsWithinSeconds: number | null;
}
