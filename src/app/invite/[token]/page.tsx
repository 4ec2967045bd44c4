import { AcceptInvitation } from "@/components/teams/accept-invitation";
import { currentUser } from "../../_lib/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Invitation · OptStuff" };

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const user = await currentUser();
  return (
    <main id="main" tabIndex={-1} className="mx-auto flex min-h-screen max-w-md flex-col justify-center px-4 py-12">
      <div className="rounded-lg border border-line bg-surface p-6 shadow-sm">
        <h1 className="mb-4 text-2xl font-semibold">Team invitation</h1>
        <AcceptInvitation token={token} signedInAs={user?.email ?? null} />
      </div>
    </main>
  );
}
