import { ProjectOverview } from "@/components/projects/project-overview";

export default async function ProjectPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  return <ProjectOverview teamSlug={team} projectSlug={project} />;
}
