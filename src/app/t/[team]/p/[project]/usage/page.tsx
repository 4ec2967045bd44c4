import { ProjectUsage } from "@/components/usage/project-usage";

export const metadata = { title: "Usage · OptStuff" };

export default async function UsagePage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  return <ProjectUsage teamSlug={team} projectSlug={project} />;
}
