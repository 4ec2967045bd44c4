import Link from "next/link";
import { SignOutButton } from "./sign-out-button";

/** The top bar of the pages outside a team (the account, the instance's log): home and where you are. */
export function SiteHeader({
  label,
  links,
}: {
  label: string;
  links: Array<{ href: string; label: string; current?: boolean }>;
}) {
  return (
    <header className="border-b border-line bg-surface">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center gap-4 px-4 py-3">
        <Link href="/" className="font-bold">
          OptStuff
        </Link>
        <nav aria-label={label} className="flex gap-3 text-sm">
          {links.map((link) => (
            <Link
              key={link.href}
              href={link.href}
              aria-current={link.current ? "page" : undefined}
              className={link.current ? "font-medium underline underline-offset-4" : "hover:underline"}
            >
              {link.label}
            </Link>
          ))}
        </nav>
        <div className="ml-auto">
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
