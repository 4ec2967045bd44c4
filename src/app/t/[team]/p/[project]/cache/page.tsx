import { ProjectCache } from "@/components/projects/project-cache";

export const metadata = { title: "Cache · OptStuff" };

export default async function ProjectCachePage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  return <ProjectCache teamSlug={team} projectSlug={project} />;
}
