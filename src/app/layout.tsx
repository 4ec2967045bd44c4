import type { ReactNode } from "react";
import { Toaster } from "@/components/ui/toaster";
import { TrpcProvider } from "@/lib/trpc/client";
import "./globals.css";

export const metadata = {
  title: "OptStuff",
  description: "Signed image proxy: resize, convert and cache images behind signed URLs.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-canvas font-sans text-ink antialiased">
        {/* The first stop of the Tab key: past the header and navigation to the page's own content. */}
        <a
          href="#main"
          className="sr-only rounded-md bg-surface px-4 py-2 font-medium shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-[70]"
        >
          Skip to content
        </a>
        <TrpcProvider>{children}</TrpcProvider>
        {/* Beside the pages, not inside the data layer: toasts are the pages' (lib/toast-store.ts). */}
        <Toaster />
      </body>
    </html>
  );
}
