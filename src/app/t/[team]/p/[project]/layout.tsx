import Link from "next/link";
import type { ReactNode } from "react";
import { fetchOrNotFound, HydrateClient, trpc } from "@/app/_lib/trpc";
import { ProjectHeading } from "@/components/shell/project-heading";
import { ProjectNav } from "@/components/shell/project-nav";

export default async function ProjectLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ team: string; project: string }>;
}) {
  const { team, project } = await params;
  await fetchOrNotFound(
    trpc.project.get.queryOptions({ teamSlug: team, projectSlug: project }),
    `/t/${team}/p/${project}`,
  );
  return (
    <HydrateClient>
      <div className="space-y-6">
        <div>
          <Link href={`/t/${team}`} className="text-sm text-muted hover:underline">
            ← Projects
          </Link>
          <ProjectHeading teamSlug={team} projectSlug={project} />
        </div>
        <ProjectNav teamSlug={team} projectSlug={project} />
        {children}
      </div>
    </HydrateClient>
  );
}
