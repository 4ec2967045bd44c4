import Link from "next/link";

export interface NavLink {
  href: string;
  label: string;
  current?: boolean;
}

/** A header's sections: the current one marked for the eye and for assistive technology. */
export function NavLinks({ label, links }: { label: string; links: NavLink[] }) {
  return (
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
  );
}
