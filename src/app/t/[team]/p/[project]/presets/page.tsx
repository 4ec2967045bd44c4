import { ProjectPresets } from "@/components/projects/project-presets";

export const metadata = { title: "Presets · OptStuff" };

export default async function ProjectPresetsPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  return <ProjectPresets teamSlug={team} projectSlug={project} />;
}
