import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { ProjectOverview } from "@/components/projects/project-overview";

export default async function ProjectPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  await prefetch(trpc.apiKey.list.queryOptions({ teamSlug: team, projectSlug: project }));
  return (
    <HydrateClient>
      <ProjectOverview teamSlug={team} projectSlug={project} />
    </HydrateClient>
  );
}
