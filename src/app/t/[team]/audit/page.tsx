import { fetchOrNotFound, HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { AuditLog } from "@/components/audit/audit-log";
import { AUDIT_PAGE } from "@/lib/schemas/audit";

export const metadata = { title: "Audit log · OptStuff" };

/**
 * Admins only: a member (FORBIDDEN) gets the not-found page with a 404, as for a team they are not in.
 * Outside the (team) group on purpose: its loading boundary streams a 200 before the refusal is known.
 */
export default async function TeamAuditPage({ params }: { params: Promise<{ team: string }> }) {
  const { team } = await params;
  await fetchOrNotFound(trpc.audit.list.queryOptions({ teamSlug: team, limit: AUDIT_PAGE }), `/t/${team}/audit`);
  await prefetch(trpc.audit.actors.queryOptions({ teamSlug: team }));
  return (
    <HydrateClient>
      <div className="space-y-4">
        <div>
          <h1 className="text-xl font-semibold">Audit log</h1>
          <p className="text-sm text-muted">
            Who changed what in this team, from where: every change made in the dashboard, through its API or on the
            command line.
          </p>
        </div>
        <AuditLog teamSlug={team} />
      </div>
    </HydrateClient>
  );
}
