import { TeamUsage } from "@/components/usage/team-usage";

export const metadata = { title: "Team usage · OptStuff" };

export default async function TeamUsagePage({ params }: { params: Promise<{ team: string }> }) {
  const { team } = await params;
  return <TeamUsage teamSlug={team} />;
}
