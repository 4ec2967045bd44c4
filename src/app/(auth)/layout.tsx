import Link from "next/link";
import type { ReactNode } from "react";

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main id="main" tabIndex={-1} className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4 py-12">
      <Link href="/" className="mb-8 text-center text-xl font-bold">
        OptStuff
      </Link>
      <div className="rounded-lg border border-line bg-surface p-6 shadow-sm">{children}</div>
    </main>
  );
}
