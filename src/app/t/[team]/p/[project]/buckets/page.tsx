import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { ProjectBuckets } from "@/components/projects/project-buckets";

export const metadata = { title: "Buckets · OptStuff" };

export default async function ProjectBucketsPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  await prefetch(trpc.sourceBucket.list.queryOptions({ teamSlug: team, projectSlug: project }));
  return (
    <HydrateClient>
      <ProjectBuckets teamSlug={team} projectSlug={project} />
    </HydrateClient>
  );
}
