import type { ReactNode } from "react";
import { AlertsBanner } from "@/components/alerts/alerts-banner";
import { TeamHeader } from "@/components/shell/team-header";
import { fetchOrNotFound, HydrateClient, prefetch, trpc } from "../../_lib/trpc";
import { requireUser } from "../../_lib/session";

export const dynamic = "force-dynamic";

export default async function TeamLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ team: string }>;
}) {
  const { team } = await params;
  await requireUser(`/t/${team}`);
  // The header and every page of the team read these: fetched here, they paint with the page.
  const [membership] = await Promise.all([
    fetchOrNotFound(trpc.team.get.queryOptions({ teamSlug: team }), `/t/${team}`),
    prefetch(trpc.account.me.queryOptions()),
  ]);
  // The alerts banner paints with the page, for those who may read alerts (a member is not asked).
  if (membership.can["alerts.read"]) await prefetch(trpc.alerts.current.queryOptions({ teamSlug: team }));
  return (
    <HydrateClient>
      <TeamHeader teamSlug={team} />
      <AlertsBanner teamSlug={team} />
      <main id="main" tabIndex={-1} className="mx-auto max-w-5xl px-4 py-6 sm:py-8">
        {children}
      </main>
    </HydrateClient>
  );
}
