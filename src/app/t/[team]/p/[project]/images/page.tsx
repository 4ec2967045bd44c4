import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { ProjectImages } from "@/components/projects/project-images";

export const metadata = { title: "Images · OptStuff" };

export default async function ProjectImagesPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  await prefetch(trpc.projectImage.get.queryOptions({ teamSlug: team, projectSlug: project }));
  return (
    <HydrateClient>
      <ProjectImages teamSlug={team} projectSlug={project} />
    </HydrateClient>
  );
}
