import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Boundary Lab", template: "%s · Boundary Lab" },
  description: "Replays agent evaluations to show where the endpoint label differs from the terminal label, and where one run reached another.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="site-header">
          <Link href="/" className="site-name">
            Boundary Lab
          </Link>
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
