import type { Metadata } from "next";
import type { ReactNode } from "react";

export const metadata: Metadata = { title: "OptStuff + next/image" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ margin: 0, fontFamily: "system-ui, sans-serif", background: "#f6f5f2", color: "#1d1d1b" }}>
        {children}
      </body>
    </html>
  );
}
