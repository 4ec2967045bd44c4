import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { ApiKeys } from "@/components/keys/api-keys";
import { DEFAULT_RATE_LIMIT_PER_DAY, DEFAULT_RATE_LIMIT_PER_MINUTE } from "@/server/config-cache/key-limits";

export const metadata = { title: "API keys · OptStuff" };

export default async function KeysPage({ params }: { params: Promise<{ team: string; project: string }> }) {
  const { team, project } = await params;
  // The limits a key without its own gets, from the server (client components import no server values).
  await prefetch(trpc.apiKey.list.queryOptions({ teamSlug: team, projectSlug: project }));
  return (
    <HydrateClient>
      <ApiKeys
        teamSlug={team}
        projectSlug={project}
        defaultLimits={{ perMinute: DEFAULT_RATE_LIMIT_PER_MINUTE, perDay: DEFAULT_RATE_LIMIT_PER_DAY }}
      />
    </HydrateClient>
  );
}
