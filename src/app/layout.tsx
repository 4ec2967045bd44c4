import type { ReactNode } from "react";
import { TrpcProvider } from "@/lib/trpc/client";
import "./globals.css";

export const metadata = {
  title: "OptStuff",
  description: "Signed image proxy: resize, convert and cache images behind signed URLs.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-neutral-50 font-sans text-neutral-900 antialiased">
        <TrpcProvider>{children}</TrpcProvider>
      </body>
    </html>
  );
}
