import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { ProjectCache } from "@/components/projects/project-cache";

export const metadata = { title: "Cache · OptStuff" };

export default async function ProjectCachePage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  await prefetch(trpc.cache.status.queryOptions({ teamSlug: team, projectSlug: project }));
  return (
    <HydrateClient>
      <ProjectCache teamSlug={team} projectSlug={project} />
    </HydrateClient>
  );
}
