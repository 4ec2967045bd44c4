import type { ReactNode } from "react";

export const metadata = {
  title: "OptStuff",
  description: "Signed image proxy: resize, convert and cache images behind signed URLs.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", margin: 0 }}>{children}</body>
    </html>
  );
}
