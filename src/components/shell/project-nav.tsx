"use client";

import Link, { useLinkStatus } from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef } from "react";
import { cn } from "@/lib/cn";

const tabs = [
  { href: "", label: "Overview" },
  { href: "/usage", label: "Usage" },
  { href: "/keys", label: "API keys" },
  { href: "/developer", label: "Developer" },
  { href: "/presets", label: "Presets" },
  { href: "/images", label: "Images" },
  { href: "/buckets", label: "Buckets" },
  { href: "/cache", label: "Cache" },
  { href: "/settings", label: "Settings" },
] as const;

export function ProjectNav({ teamSlug, projectSlug }: { teamSlug: string; projectSlug: string }) {
  const pathname = usePathname();
  const base = `/t/${teamSlug}/p/${projectSlug}`;
  const strip = useRef<HTMLElement>(null);
  useEffect(() => {
    // Where the tabs scroll sideways, bring the current one to the middle, never the page
    // (offsetLeft counts from the nav, which is positioned for that).
    const nav = strip.current;
    const active = nav?.querySelector<HTMLElement>('[aria-current="page"]');
    if (nav && active) nav.scrollLeft = active.offsetLeft - (nav.clientWidth - active.offsetWidth) / 2;
  }, [pathname]);
  return (
    <nav
      ref={strip}
      aria-label="Project"
      // On a phone the tabs wrap, every one in sight; wider, they scroll sideways if they must.
      className="relative -mx-4 border-b border-neutral-200 px-4 sm:overflow-x-auto"
    >
      <ul className="flex flex-wrap gap-x-1 sm:flex-nowrap">
        {tabs.map((tab) => {
          const href = `${base}${tab.href}`;
          const current = pathname === href;
          return (
            <li key={tab.label}>
              <Link
                href={href}
                aria-current={current ? "page" : undefined}
                className={cn(
                  "inline-block border-b-2 px-3 py-2 text-sm whitespace-nowrap",
                  current
                    ? "border-neutral-900 font-medium"
                    : "border-transparent text-neutral-600 hover:text-neutral-900",
                )}
              >
                {tab.label}
                <Pending />
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** A dot after a tab's label while its page is on the way (before the loading state can show). */
function Pending() {
  const { pending } = useLinkStatus();
  return pending ? (
    <span aria-hidden className="ml-1.5 inline-block size-1.5 animate-pulse rounded-full bg-neutral-500 align-middle" />
  ) : null;
}
