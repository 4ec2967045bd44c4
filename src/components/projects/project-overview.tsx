"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { CopyField } from "@/components/ui/copy-field";
import { Card, ErrorMessage, Loading } from "@/components/ui/feedback";
import { useTRPC } from "@/lib/trpc/client";

export function ProjectOverview({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const project = useQuery(trpc.project.get.queryOptions({ teamSlug, projectSlug }));
  const keys = useQuery(trpc.apiKey.list.queryOptions({ teamSlug, projectSlug }));
  if (project.isPending) return <Loading />;
  if (project.error) return <ErrorMessage error={project.error} />;
  const { project: p, baseUrl } = project.data;
  const active = keys.data?.filter((k) => k.status === "active" || k.status === "rotating").length ?? 0;
  const base = `/t/${teamSlug}/p/${projectSlug}`;
  return (
    <div className="space-y-6">
      <Card title="Endpoint">
        <CopyField label="Image endpoint" value={`${baseUrl}/api/v1/${p.slug}/{operations}/{source}?key=pk_…&sig=…`} />
        <dl className="mt-4 grid gap-3 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-subtle">Active keys</dt>
            <dd className="font-medium">{keys.isPending ? "…" : active}</dd>
          </div>
          <div>
            <dt className="text-subtle">Allowed sources</dt>
            <dd className="font-medium break-words">{p.allowedSourceHosts.join(", ") || "none yet"}</dd>
          </div>
          <div>
            <dt className="text-subtle">Allowed referers</dt>
            <dd className="font-medium break-words">{p.allowedRefererHosts.join(", ") || "any"}</dd>
          </div>
        </dl>
      </Card>
      <Card title="Quickstart">
        <ol className="list-decimal space-y-3 pl-5 text-sm">
          <li>
            Allow the hosts your images come from in{" "}
            <Link className="underline" href={`${base}/settings`}>
              Settings
            </Link>
            .
          </li>
          <li>
            Create a key in{" "}
            <Link className="underline" href={`${base}/keys`}>
              API keys
            </Link>{" "}
            and put its <code>.env</code> block in your app’s server environment.
          </li>
          <li>
            Sign URLs on your server (snippets and a URL tester in{" "}
            <Link className="underline" href={`${base}/developer`}>
              Developer
            </Link>
            ) and use them as image sources.
          </li>
        </ol>
      </Card>
    </div>
  );
}
