"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/client";

/** A project page's heading, from the layout's prefetched project: renamed in settings, it follows. */
export function ProjectHeading({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const project = useQuery(trpc.project.get.queryOptions({ teamSlug, projectSlug }));
  return <ProjectTitle name={project.data?.project.name ?? projectSlug} slug={projectSlug} />;
}

/** The name people gave the project, and the slug its URLs carry, smaller. */
export function ProjectTitle({ name, slug }: { name: string; slug: string }) {
  return (
    <>
      <h1 className="mt-1 text-2xl font-semibold break-words">{name}</h1>
      <p className="font-mono text-sm text-muted">{slug}</p>
    </>
  );
}
