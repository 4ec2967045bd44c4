import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { DeveloperTab } from "@/components/projects/developer-tab";

export const metadata = { title: "Developer · OptStuff" };

export default async function DeveloperPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  await prefetch(trpc.apiKey.list.queryOptions({ teamSlug: team, projectSlug: project }));
  return (
    <HydrateClient>
      <DeveloperTab teamSlug={team} projectSlug={project} />
    </HydrateClient>
  );
}
