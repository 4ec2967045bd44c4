import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { ProjectPresets } from "@/components/projects/project-presets";

export const metadata = { title: "Presets · OptStuff" };

export default async function ProjectPresetsPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  await prefetch(trpc.preset.list.queryOptions({ teamSlug: team, projectSlug: project }));
  return (
    <HydrateClient>
      <ProjectPresets teamSlug={team} projectSlug={project} />
    </HydrateClient>
  );
}
