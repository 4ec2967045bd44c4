import type { ReactNode } from "react";
import { TeamHeader } from "@/components/shell/team-header";
import { requireUser } from "../../_lib/session";

export const dynamic = "force-dynamic";

export default async function TeamLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ team: string }>;
}) {
  const { team } = await params;
  await requireUser(`/t/${team}`);
  return (
    <>
      <TeamHeader teamSlug={team} />
      <main className="mx-auto max-w-5xl px-4 py-6 sm:py-8">{children}</main>
    </>
  );
}
