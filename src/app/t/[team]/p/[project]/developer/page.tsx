import { DeveloperTab } from "@/components/projects/developer-tab";

export const metadata = { title: "Developer · OptStuff" };

export default async function DeveloperPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  return <DeveloperTab teamSlug={team} projectSlug={project} />;
}
