import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { SignOutButton } from "@/components/account-forms";
import { Providers } from "@/components/providers";
import { pagePrincipal } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Boundary Lab", template: "%s · Boundary Lab" },
  description: "Replays agent evaluations to show where the endpoint label differs from the terminal label, and where one run reached another.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const principal = await pagePrincipal();
  return (
    <html lang="en">
      <body>
        <header className="site-header">
          <Link href="/" className="site-name">
            Boundary Lab
          </Link>
          {principal ? (
            <nav aria-label="Sections" className="site-nav">
              <Link href="/">Experiments</Link>
              {can(principal.role, "experiment:run") ? <Link href="/experiments/new">New experiment</Link> : null}
              <Link href="/effects">Open effects</Link>
              <Link href="/protocols">Protocol review</Link>
            </nav>
          ) : null}
          {principal ? (
            <nav aria-label="Account" className="site-nav">
              <span data-testid="signed-in-as">
                {principal.email} <span className="muted">({principal.role})</span>
              </span>
              <Link href="/account">Account</Link>
              {can(principal.role, "users:admin") ? <Link href="/admin">Admin</Link> : null}
              <SignOutButton />
            </nav>
          ) : null}
        </header>
        <main>
          <Providers>{children}</Providers>
        </main>
      </body>
    </html>
  );
}
