import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { firstRequestLogPage, INITIAL_RANGE } from "@/components/usage/first-view";
import { ProjectUsage } from "@/components/usage/project-usage";
import { requestLogStatuses } from "@/server/errors";

export const metadata = { title: "Usage · OptStuff" };

export default async function UsagePage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  const scope = { teamSlug: team, projectSlug: project };
  await Promise.all([
    prefetch(trpc.usage.project.queryOptions({ ...scope, range: INITIAL_RANGE })),
    prefetch(trpc.usage.requestLog.queryOptions(firstRequestLogPage(scope, INITIAL_RANGE))),
  ]);
  // The request log's statuses come from the error catalogue, on the server.
  return (
    <HydrateClient>
      <ProjectUsage teamSlug={team} projectSlug={project} statuses={requestLogStatuses} />
    </HydrateClient>
  );
}
