import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { TeamSettings } from "@/components/teams/team-settings";

export const metadata = { title: "Team settings · OptStuff" };

export default async function TeamSettingsPage({ params }: { params: Promise<{ team: string }> }) {
  const { team } = await params;
  // Invitations, alerts, webhooks and the audit stream answer only to admins; a refusal is not prefetched, the card handles it.
  await Promise.all([
    prefetch(trpc.team.members.queryOptions({ teamSlug: team })),
    prefetch(trpc.team.invitations.queryOptions({ teamSlug: team })),
    prefetch(trpc.alerts.settings.queryOptions({ teamSlug: team })),
    prefetch(trpc.webhooks.list.queryOptions({ teamSlug: team })),
    prefetch(trpc.auditStream.status.queryOptions({ teamSlug: team })),
  ]);
  return (
    <HydrateClient>
      <TeamSettings teamSlug={team} />
    </HydrateClient>
  );
}
