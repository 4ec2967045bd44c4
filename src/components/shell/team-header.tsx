"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useTRPC } from "@/lib/trpc/client";
import { Select } from "@/components/ui/select";
import { NavLinks } from "./nav-links";
import { SignOutButton } from "./sign-out-button";

/** Top bar of every team page: team switcher, settings, who is signed in, sign out. */
export function TeamHeader({ teamSlug }: { teamSlug: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const me = useQuery(trpc.account.me.queryOptions());
  const team = useQuery(trpc.team.get.queryOptions({ teamSlug }));
  const pathname = usePathname() ?? "";
  const base = `/t/${teamSlug}`;
  const sections = [
    { href: base, label: "Projects", current: pathname === base || pathname.startsWith(`${base}/p/`) },
    { href: `${base}/usage`, label: "Usage", current: pathname === `${base}/usage` },
    ...(team.data?.can["audit.read"]
      ? [{ href: `${base}/audit`, label: "Audit log", current: pathname === `${base}/audit` }]
      : []),
    { href: `${base}/settings`, label: "Settings", current: pathname === `${base}/settings` },
  ];
  return (
    <header className="border-b border-line bg-surface">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3">
        <Link href="/" className="font-bold">
          OptStuff
        </Link>
        <label className="flex items-center gap-2 text-sm">
          <span className="sr-only">Team</span>
          <Select
            size="sm"
            className="max-w-48"
            value={teamSlug}
            onChange={(e) => router.push(e.target.value === "__new" ? "/teams/new" : `/t/${e.target.value}`)}
          >
            {(me.data?.teams ?? [{ slug: teamSlug, name: teamSlug }]).map((team) => (
              <option key={team.slug} value={team.slug}>
                {team.name}
              </option>
            ))}
            <option value="__new">+ New team…</option>
          </Select>
        </label>
        <NavLinks label="Team" links={sections} />
        <div className="ml-auto flex items-center gap-2 text-sm">
          {me.data?.ownsInstance ? (
            <Link href="/instance/audit" className="hover:underline">
              Instance log
            </Link>
          ) : null}
          <span className="hidden text-muted sm:inline">{me.data?.user.email}</span>
          <Link href="/account" className="hover:underline">
            Account
          </Link>
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
