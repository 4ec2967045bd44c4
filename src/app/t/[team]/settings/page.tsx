import { TeamSettings } from "@/components/teams/team-settings";

export const metadata = { title: "Team settings · OptStuff" };

export default async function TeamSettingsPage({ params }: { params: Promise<{ team: string }> }) {
  return <TeamSettings teamSlug={(await params).team} />;
}
