import { redirect } from "next/navigation";
import { TeamForm } from "@/components/teams/onboarding-form";
import { onboardingStep } from "@/lib/first-steps";
import { requireUser, safeNext } from "../_lib/session";
import { procedures } from "../_lib/trpc";

export const dynamic = "force-dynamic";
export const metadata = { title: "Welcome · OptStuff" };

export default async function OnboardingPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string | string[] }>;
}) {
  const user = await requireUser("/onboarding");
  const next = safeNext((await searchParams).next);
  const me = await (await procedures()).account.me();
  // No team is made on the way: the first account starts in the team it adopted, an invited one at its invitation.
  const step = onboardingStep(me, next);
  if (step.kind === "go") redirect(step.to);
  return (
    <main id="main" tabIndex={-1} className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4 py-12">
      <div className="rounded-lg border border-line bg-surface p-6 shadow-sm">
        <h1 className="text-2xl font-semibold">Welcome, {user.name}</h1>
        <p className="mt-2 mb-6 text-sm text-muted">
          Name your team. Projects, API keys and members live in a team; you can invite people later.
        </p>
        <TeamForm mode="onboarding" next={next} initialName={me.pendingTeamName ?? ""} />
      </div>
    </main>
  );
}
