"use client";

import { ChevronDown, Menu } from "lucide-react";
import Link, { useLinkStatus } from "next/link";
import { usePathname } from "next/navigation";
import { DropdownMenu } from "radix-ui";
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
  const current = tabs.find((tab) => pathname === `${base}${tab.href}`);
  return (
    <nav
      ref={strip}
      aria-label="Project"
      // On a phone a menu naming the current section; wider, tabs that scroll sideways if they must.
      className="relative -mx-4 border-b border-line px-4 sm:overflow-x-auto"
    >
      <SectionMenu base={base} current={current?.label} />
      <ul className="hidden gap-x-1 sm:flex">
        {tabs.map((tab) => {
          const href = `${base}${tab.href}`;
          const isCurrent = tab === current;
          return (
            <li key={tab.label}>
              <Link
                href={href}
                aria-current={isCurrent ? "page" : undefined}
                className={cn(
                  "inline-block border-b-2 px-3 py-2 text-sm whitespace-nowrap",
                  isCurrent ? "border-ink font-medium" : "border-transparent text-muted hover:text-ink",
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

/** The sections as a Radix menu (arrow keys, Escape, focus returned), for a phone's width. */
function SectionMenu({ base, current }: { base: string; current: string | undefined }) {
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger
        data-testid="section-menu"
        className="mb-2 inline-flex min-h-10 w-full items-center gap-2 rounded-md border border-line-strong bg-surface px-3 text-sm font-medium sm:hidden"
      >
        <Menu aria-hidden className="size-4" />
        <span className="sr-only">Project section: </span>
        <span className="flex-1 text-left">{current ?? "Sections"}</span>
        <ChevronDown aria-hidden className="size-4" />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align="start"
          sideOffset={4}
          className="z-50 min-w-56 rounded-md border border-line bg-surface p-1 shadow-lg"
        >
          {tabs.map((tab) => (
            <DropdownMenu.Item key={tab.label} asChild>
              <Link
                href={`${base}${tab.href}`}
                aria-current={tab.label === current ? "page" : undefined}
                className="block rounded px-3 py-2 text-sm outline-none data-[highlighted]:bg-sunken aria-[current=page]:font-medium"
              >
                {tab.label}
              </Link>
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** A dot after a tab's label while its page is on the way (before the loading state can show). */
function Pending() {
  const { pending } = useLinkStatus();
  return pending ? (
    <span aria-hidden className="ml-1.5 inline-block size-1.5 animate-pulse rounded-full bg-subtle align-middle" />
  ) : null;
}
