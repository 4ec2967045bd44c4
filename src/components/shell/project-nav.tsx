"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
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
  return (
    <nav aria-label="Project" className="-mx-4 overflow-x-auto border-b border-neutral-200 px-4">
      <ul className="flex gap-1">
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
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
