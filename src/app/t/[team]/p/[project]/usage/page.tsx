import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { ProjectUsage } from "@/components/usage/project-usage";
import { requestLogStatuses } from "@/server/errors";

export const metadata = { title: "Usage · OptStuff" };

export default async function UsagePage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  // The request log's statuses come from the error catalogue, on the server.
  await prefetch(trpc.usage.project.queryOptions({ teamSlug: team, projectSlug: project, range: { preset: "30d" } }));
  return (
    <HydrateClient>
      <ProjectUsage teamSlug={team} projectSlug={project} statuses={requestLogStatuses} />
    </HydrateClient>
  );
}
