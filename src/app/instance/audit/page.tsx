import { fetchOrNotFound, HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import { requireUser } from "@/app/_lib/session";
import { SiteHeader } from "@/components/shell/site-header";
import { AuditLog } from "@/components/audit/audit-log";
import { AUDIT_PAGE } from "@/lib/schemas/audit";

export const metadata = { title: "Instance audit log · OptStuff" };
export const dynamic = "force-dynamic";

/** The instance's owner only: sign-ins, failed sign-ins, deleted teams, the command line's instance work. */
export default async function InstanceAuditPage() {
  await requireUser("/instance/audit");
  await fetchOrNotFound(trpc.audit.instanceList.queryOptions({ limit: AUDIT_PAGE }), "/instance/audit");
  await prefetch(trpc.audit.instanceActors.queryOptions());
  return (
    <HydrateClient>
      <SiteHeader
        label="Instance"
        links={[
          { href: "/", label: "Teams" },
          { href: "/instance/audit", label: "Audit log", current: true },
        ]}
      />
      <main id="main" tabIndex={-1} className="mx-auto max-w-5xl space-y-4 px-4 py-6 sm:py-8">
        <div>
          <h1 className="text-xl font-semibold">Instance audit log</h1>
          <p className="text-sm text-muted">
            Sign-ins and failed sign-ins, deleted teams, and what the command line did to the instance. Each team&apos;s
            own changes are in its audit log.
          </p>
        </div>
        <AuditLog teamSlug={null} />
      </main>
    </HydrateClient>
  );
}
