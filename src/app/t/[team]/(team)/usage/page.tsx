import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { TeamUsage } from "@/components/usage/team-usage";
import { INITIAL_RANGE } from "@/components/usage/first-view";

export const metadata = { title: "Team usage · OptStuff" };

export default async function TeamUsagePage({ params }: { params: Promise<{ team: string }> }) {
  const { team } = await params;
  await prefetch(trpc.usage.team.queryOptions({ teamSlug: team, range: INITIAL_RANGE }));
  return (
    <HydrateClient>
      <TeamUsage teamSlug={team} />
    </HydrateClient>
  );
}
