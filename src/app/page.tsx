import Link from "next/link";
import { redirect } from "next/navigation";
import { currentUser } from "./_lib/session";
import { procedures } from "./_lib/trpc";

export const dynamic = "force-dynamic";

/** Signed in: straight to onboarding or the first team. Signed out: what this is and how to start. */
export default async function HomePage() {
  const user = await currentUser();
  if (user) {
    const { pendingTeamSlug, teams } = await (await procedures()).account.me();
    redirect(pendingTeamSlug || teams.length === 0 ? "/onboarding" : `/t/${teams[0]!.slug}`);
  }
  return (
    <main id="main" tabIndex={-1} className="mx-auto max-w-2xl px-4 py-16">
      <h1 className="text-3xl font-bold">OptStuff</h1>
      <p className="mt-4 text-ink-soft">
        A signed image proxy: put signed URLs in your pages and get images resized, converted and cached. Image URLs
        have the form{" "}
        <code className="rounded bg-sunken px-1 text-sm">
          /api/v1/{"{project}"}/{"{operations}"}/{"{source}"}?key=…&amp;sig=…
        </code>
        .
      </p>
      <div className="mt-8 flex flex-wrap gap-3">
        <Link
          href="/sign-up"
          className="rounded-md bg-ink px-4 py-2 text-sm font-medium text-on-solid hover:bg-ink-soft"
        >
          Create an account
        </Link>
        <Link
          href="/sign-in"
          className="rounded-md border border-line-strong bg-surface px-4 py-2 text-sm font-medium hover:bg-sunken"
        >
          Sign in
        </Link>
      </div>
      <p className="mt-8 text-sm text-subtle">
        Health:{" "}
        <a className="underline" href="/api/health">
          /api/health
        </a>
      </p>
    </main>
  );
}
