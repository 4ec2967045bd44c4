import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { TeamOverview } from "@/components/projects/team-overview";

export default async function TeamPage({ params }: { params: Promise<{ team: string }> }) {
  const { team } = await params;
  await prefetch(trpc.project.list.queryOptions({ teamSlug: team, search: "" }));
  return (
    <HydrateClient>
      <TeamOverview teamSlug={team} />
    </HydrateClient>
  );
}
