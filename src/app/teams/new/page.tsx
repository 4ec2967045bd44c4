import Link from "next/link";
import { TeamForm } from "@/components/teams/onboarding-form";
import { requireUser } from "../../_lib/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "New team · OptStuff" };

export default async function NewTeamPage() {
  await requireUser("/teams/new");
  return (
    <main id="main" tabIndex={-1} className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4 py-12">
      <div className="rounded-lg border border-line bg-surface p-6 shadow-sm">
        <h1 className="mb-6 text-2xl font-semibold">New team</h1>
        <TeamForm mode="create" />
      </div>
      <Link href="/" className="mt-4 text-center text-sm underline">
        Back
      </Link>
    </main>
  );
}
