import { ProjectImages } from "@/components/projects/project-images";

export const metadata = { title: "Images · OptStuff" };

export default async function ProjectImagesPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  return <ProjectImages teamSlug={team} projectSlug={project} />;
}
