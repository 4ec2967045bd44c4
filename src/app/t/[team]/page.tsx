import { TeamOverview } from "@/components/projects/team-overview";

export default async function TeamPage({ params }: { params: Promise<{ team: string }> }) {
  const { team } = await params;
  return <TeamOverview teamSlug={team} />;
}
