import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import type { ReactNode } from "react";
import { AppShell, PublicShell } from "@/components/shell/app-shell";
import type { ThemeChoice } from "@/components/shell/theme-toggle";
import { pagePrincipal } from "@/lib/auth/guard";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Boundary Lab", template: "%s · Boundary Lab" },
  description:
    "Replays agent evaluations to show where the endpoint label differs from the terminal label, and where one run reached another.",
  icons: {
    icon: [
      { url: "/favicon.svg", type: "image/svg+xml" },
      { url: "/favicon.ico", sizes: "32x32" },
    ],
  },
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const principal = await pagePrincipal();
  const stored = (await cookies()).get("theme")?.value;
  const theme: ThemeChoice = stored === "light" || stored === "dark" ? stored : "system";
  const instance = (await headers()).get("host") ?? "this instance";
  return (
    <html lang="en" data-theme={theme === "system" ? undefined : theme}>
      <body className="bg-background text-foreground">
        {principal ? (
          <AppShell principal={principal} instance={instance} theme={theme}>
            {children}
          </AppShell>
        ) : (
          <PublicShell>{children}</PublicShell>
        )}
      </body>
    </html>
  );
}
