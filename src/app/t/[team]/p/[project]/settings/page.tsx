import { ProjectSettings } from "@/components/projects/project-settings";

export const metadata = { title: "Project settings · OptStuff" };

export default async function ProjectSettingsPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  return <ProjectSettings teamSlug={team} projectSlug={project} />;
}
