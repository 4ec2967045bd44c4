"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { EmptyState, ErrorMessage, Loading } from "@/components/ui/feedback";
import { useTRPC } from "@/lib/trpc/client";
import { CreateProjectDialog } from "./create-project-dialog";

export function TeamOverview({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const [creating, setCreating] = useState(false);
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const projects = useQuery({
    ...trpc.project.list.queryOptions({ teamSlug, search }),
    placeholderData: keepPreviousData,
  });
  if (team.error) return <ErrorMessage error={team.error} />;
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold">{team.data?.team.name ?? "…"}</h1>
          <p className="text-sm text-muted">Projects of this team. Your role: {team.data?.role ?? "…"}</p>
        </div>
        {team.data?.can["project.create"] ? (
          <CreateProjectDialog teamSlug={teamSlug} open={creating} setOpen={setCreating} />
        ) : null}
      </div>
      <label className="block max-w-sm text-sm">
        <span className="sr-only">Search projects</span>
        <input
          type="search"
          placeholder="Search projects"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          className="w-full rounded-md border border-line-strong px-3 py-2"
        />
      </label>
      {projects.isPending ? <Loading /> : null}
      <ErrorMessage error={projects.error} />
      {projects.data && projects.data.length === 0 ? (
        <EmptyState title={search ? "No project matches" : "No projects yet"}>
          {search ? (
            "Try another name or slug."
          ) : (
            <>
              <p>A project holds the API keys, allowed sources and settings of one site or app.</p>
              {team.data?.can["project.create"] ? (
                <div className="mt-3">
                  <Button icon={Plus} onClick={() => setCreating(true)}>
                    Create the first project
                  </Button>
                </div>
              ) : null}
            </>
          )}
        </EmptyState>
      ) : null}
      <ul className="grid gap-3 sm:grid-cols-2">
        {projects.data?.map((project) => (
          <li key={project.id}>
            <Link
              href={`/t/${teamSlug}/p/${project.slug}`}
              className="block rounded-lg border border-line bg-surface p-4 shadow-sm hover:border-faint"
            >
              <span className="font-medium">{project.name}</span>
              <span className="mt-1 block font-mono text-xs text-subtle">{project.slug}</span>
              <span className="mt-2 block text-xs text-muted">
                {project.allowedSourceHosts.length
                  ? `Sources: ${project.allowedSourceHosts.join(", ")}`
                  : "No sources allowed yet"}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
