"use client";

import { useQuery } from "@tanstack/react-query";
import { CopyField } from "@/components/ui/copy-field";
import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";
import { cn } from "@/lib/cn";
import { Card, EmptyState, ErrorMessage, Loading } from "@/components/ui/feedback";
import { envBlock, nextImageSnippet, nextjsSnippet, nodeSnippet } from "@/lib/snippets";
import { useTRPC } from "@/lib/trpc/client";
import { UrlTester } from "@/components/url-tester/url-tester";

export function DeveloperTab({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const trpc = useTRPC();
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const project = useQuery(trpc.project.get.queryOptions({ teamSlug, projectSlug }));
  const keys = useQuery(trpc.apiKey.list.queryOptions({ teamSlug, projectSlug }));
  const usable = keys.data?.filter((k) => k.status === "active" || k.status === "rotating") ?? [];
  if (project.isPending || keys.isPending) return <Loading />;
  if (project.error) return <ErrorMessage error={project.error} />;
  const firstKey = usable[0];
  return (
    <div className="space-y-6">
      <Card title="URL tester">
        {usable.length === 0 ? (
          <EmptyState title="No active key">
            <p>The tester signs with one of the project&apos;s keys.</p>
            <Link href={`/t/${teamSlug}/p/${projectSlug}/keys`} className={cn(buttonClasses(), "mt-3")}>
              Go to API keys
            </Link>
          </EmptyState>
        ) : (
          <UrlTester
            teamSlug={teamSlug}
            projectSlug={projectSlug}
            keys={usable}
            mayBePermanent={team.data?.can["developer.signPermanent"] ?? false}
            hasRefererList={project.data.project.allowedRefererHosts.length > 0}
          />
        )}
      </Card>
      <Card title="Snippets">
        <div className="space-y-4">
          <CopyField
            label="Environment"
            value={envBlock({ baseUrl: project.data.baseUrl, projectSlug, publicKey: firstKey?.publicKey ?? "pk_…" })}
            multiline
          />
          <CopyField
            label="Next.js with @optstuff/client (next/image)"
            value={nextImageSnippet(project.data.project.allowedSourceHosts)}
            multiline
          />
          <CopyField label="Next.js" value={nextjsSnippet(project.data.project.allowedSourceHosts)} multiline />
          <CopyField label="Node" value={nodeSnippet(project.data.project.allowedSourceHosts)} multiline />
        </div>
      </Card>
    </div>
  );
}
