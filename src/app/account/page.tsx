import { HydrateClient, prefetch, trpc } from "@/app/_lib/trpc";
import Link from "next/link";
import { requireUser, safeNext } from "@/app/_lib/session";
import { PasskeysCard } from "@/components/account/passkeys-card";
import { SecondFactorCard } from "@/components/account/second-factor-card";
import { SiteHeader } from "@/components/shell/site-header";

export const metadata = { title: "Your account · OptStuff" };
export const dynamic = "force-dynamic";

/** The signed-in person's own settings: how they sign in. */
export default async function AccountPage({ searchParams }: { searchParams: Promise<{ required?: string }> }) {
  const user = await requireUser("/account");
  // Sent here by a team that requires a second factor: where to go back to once it is on.
  const { required } = await searchParams;
  const back = required === undefined ? null : safeNext(required);
  await prefetch(trpc.account.security.queryOptions());
  return (
    <HydrateClient>
      <SiteHeader
        label="Account"
        links={[
          { href: "/", label: "Teams" },
          { href: "/account", label: "Account", current: true },
        ]}
      />
      <main id="main" tabIndex={-1} className="mx-auto max-w-2xl space-y-6 px-4 py-6 sm:py-8">
        <div>
          <h1 className="text-2xl font-semibold">Your account</h1>
          <p className="text-sm break-all text-muted">Signed in as {user.email}</p>
        </div>
        {back ? (
          <p role="alert" className="rounded-md border border-warning-line bg-warning-soft p-3 text-sm text-warning">
            The team you opened requires a second factor. Set one up below, then{" "}
            {/* Not prefetched: fetched while the factor was off, the team's page would answer with this redirect. */}
            <Link className="underline" href={back} prefetch={false}>
              go back to it
            </Link>
            .
          </p>
        ) : null}
        <SecondFactorCard />
        <PasskeysCard />
      </main>
    </HydrateClient>
  );
}
