"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn";

/** A sidebar link, marked as the current page (aria-current) on its section's paths. */
export function NavLink({ href, children, match }: { href: string; children: ReactNode; match: string[] }) {
  const pathname = usePathname();
  const current = match.some((prefix) =>
    prefix === "/" ? pathname === "/" || pathname.startsWith("/experiments") || pathname.startsWith("/runs") : pathname.startsWith(prefix),
  );
  return (
    <Link
      href={href}
      aria-current={current ? "page" : undefined}
      className={cn(
        "flex items-center gap-2.5 rounded-md px-2.5 py-1.5 text-sm font-medium text-muted-foreground no-underline hover:bg-muted hover:text-foreground [&_svg]:size-4",
        current && "bg-accent text-foreground",
      )}
    >
      {children}
    </Link>
  );
}
