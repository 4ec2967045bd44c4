import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { TeamUsage } from "@/components/usage/team-usage";

export const metadata = { title: "Team usage · OptStuff" };

export default async function TeamUsagePage({ params }: { params: Promise<{ team: string }> }) {
  const { team } = await params;
  await prefetch(trpc.usage.team.queryOptions({ teamSlug: team, range: { preset: "30d" } }));
  return (
    <HydrateClient>
      <TeamUsage teamSlug={team} />
    </HydrateClient>
  );
}
