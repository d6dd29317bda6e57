import { FlaskConical, Gauge, Library, ListChecks, Plus, ShieldCheck, Waypoints } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { buttonClass } from "@/components/ui/button";
import { Toaster } from "@/components/ui/toast";
import type { Principal } from "@/lib/auth/principal";
import { can } from "@/lib/auth/permissions";
import { NavLink } from "./nav-link";
import { SignOutButton } from "./sign-out-button";
import { ThemeToggle, type ThemeChoice } from "./theme-toggle";

function Brand() {
  return (
    <Link href="/" className="flex items-center gap-2 font-semibold text-foreground no-underline">
      <svg viewBox="0 0 32 32" aria-hidden="true" className="size-6">
        <rect width="32" height="32" rx="7" fill="var(--primary)" />
        <path d="M9 8v16M23 8v16M9 16h14" stroke="var(--primary-foreground)" strokeWidth="3" strokeLinecap="round" />
      </svg>
      Boundary Lab
    </Link>
  );
}

function Sections({ principal }: { principal: Principal }) {
  return (
    <>
      <NavLink href="/" match={["/"]}>
        <FlaskConical aria-hidden="true" />
        Experiments
      </NavLink>
      <NavLink href="/evaluations" match={["/evaluations"]}>
        <Gauge aria-hidden="true" />
        Evaluations
      </NavLink>
      <NavLink href="/traces" match={["/traces"]}>
        <Library aria-hidden="true" />
        Traces
      </NavLink>
      <NavLink href="/effects" match={["/effects"]}>
        <Waypoints aria-hidden="true" />
        Open effects
      </NavLink>
      <NavLink href="/protocols" match={["/protocols"]}>
        <ListChecks aria-hidden="true" />
        Protocol review
      </NavLink>
      {can(principal.role, "users:admin") ? (
        <NavLink href="/admin" match={["/admin"]}>
          <ShieldCheck aria-hidden="true" />
          Admin
        </NavLink>
      ) : null}
    </>
  );
}

/**
 * The signed-in frame of every page: a sidebar of sections (a row of links on a phone), a header
 * with the instance, the user and the theme, and the page in <main>.
 */
export function AppShell({
  principal,
  instance,
  theme,
  children,
}: {
  principal: Principal;
  instance: string;
  theme: ThemeChoice;
  children: ReactNode;
}) {
  return (
    <Toaster>
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-card focus:p-2"
      >
        Skip to content
      </a>
      <div className="min-h-screen md:grid md:grid-cols-[14rem_1fr]">
        <aside className="hidden border-r border-border bg-card md:flex md:flex-col md:gap-6 md:px-3 md:py-4">
          <div className="px-2">
            <Brand />
          </div>
          <nav aria-label="Sections" className="flex flex-col gap-1">
            <Sections principal={principal} />
          </nav>
          {can(principal.role, "experiment:run") ? (
            <Link href="/experiments/new" className={buttonClass({ variant: "primary", className: "mx-1" })}>
              <Plus aria-hidden="true" />
              New experiment
            </Link>
          ) : null}
        </aside>
        <div className="min-w-0">
          {/* Pinned from md up only: on a phone its wrapped rows would cover a third of the screen while scrolling. */}
          <header className="z-30 flex md:sticky md:top-0 flex-wrap items-center justify-between gap-x-4 gap-y-2 border-b border-border bg-card/95 px-4 py-2 backdrop-blur">
            <div className="flex items-center gap-3 md:hidden">
              <Brand />
            </div>
            <p className="hidden text-sm text-muted-foreground md:block">
              Instance <span className="font-medium text-foreground">{instance}</span>
            </p>
            <div className="flex flex-wrap items-center gap-2">
              <ThemeToggle initial={theme} />
              <span data-testid="signed-in-as" className="text-sm">
                {principal.email} <span className="text-muted-foreground">({principal.role})</span>
              </span>
              <Link href="/account" className={buttonClass({ variant: "ghost", size: "sm" })}>
                Account
              </Link>
              <SignOutButton />
            </div>
            <nav aria-label="Sections (compact)" className="flex w-full gap-1 overflow-x-auto md:hidden">
              <Sections principal={principal} />
            </nav>
          </header>
          <main id="main" className="mx-auto w-full max-w-7xl px-4 py-6 md:px-8">
            {children}
          </main>
        </div>
      </div>
    </Toaster>
  );
}

/** The frame of pages seen without an account (sign-in, first-run setup, shared links). */
export function PublicShell({ children }: { children: ReactNode }) {
  return (
    <div className="min-h-screen">
      <header className="border-b border-border bg-card px-4 py-3">
        <Brand />
      </header>
      <main id="main" className="mx-auto w-full max-w-6xl px-4 py-6 md:px-8">
        {children}
      </main>
    </div>
  );
}
