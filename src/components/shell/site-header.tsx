import Link from "next/link";
import { NavLinks, type NavLink } from "./nav-links";
import { SignOutButton } from "./sign-out-button";

/** The top bar of the pages outside a team (the account, the instance's log): home and where you are. */
export function SiteHeader({ label, links }: { label: string; links: NavLink[] }) {
  return (
    <header className="border-b border-line bg-surface">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center gap-4 px-4 py-3">
        <Link href="/" className="font-bold">
          OptStuff
        </Link>
        <NavLinks label={label} links={links} />
        <div className="ml-auto">
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
