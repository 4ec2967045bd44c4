"use client";

import { useQuery } from "@tanstack/react-query";
import { TriangleAlert } from "lucide-react";
import Link from "next/link";
import { useTRPC } from "@/lib/trpc/client";

/** Where each alert is dealt with, under its project. */
const PAGE = {
  keyDayLimit: { path: "keys", name: "API keys" },
  errorRate: { path: "usage", name: "usage" },
  keyExpiry: { path: "keys", name: "API keys" },
  bucketCredentials: { path: "buckets", name: "buckets" },
  keySpendCap: { path: "keys", name: "API keys" },
} as const;

/** Refreshed this often: a check runs every minute, an alert appears without a reload. */
const REFRESH_MS = 10_000;

/** The team's current alerts above every team page, for its admins (members have none to see). */
export function AlertsBanner({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const alerts = useQuery({
    ...trpc.alerts.current.queryOptions({ teamSlug }),
    enabled: team.data?.can["alerts.read"] === true,
    refetchInterval: REFRESH_MS,
  });
  if (!alerts.data || alerts.data.length === 0) return null;
  return (
    <section
      aria-label="Alerts"
      data-testid="alerts-banner"
      className="border-b border-warning-line bg-warning-soft text-warning"
    >
      {/* Polite: an alert a refresh brings is read out once, without taking the reader's focus. */}
      <ul aria-live="polite" className="mx-auto max-w-5xl space-y-1 px-4 py-2 text-sm">
        {alerts.data.map((alert) => (
          <li key={alert.id} className="flex items-start gap-2">
            <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
            <span className="min-w-0 break-words">
              {alert.message}{" "}
              <Link
                className="font-medium underline underline-offset-2"
                href={`/t/${teamSlug}/p/${alert.projectSlug}/${PAGE[alert.kind].path}`}
              >
                Open the project&apos;s {PAGE[alert.kind].name}
              </Link>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
