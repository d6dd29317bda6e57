"use client";

import { Monitor, Moon, Sun } from "lucide-react";
import { useState } from "react";
import { cn } from "@/components/ui/cn";

export type ThemeChoice = "system" | "light" | "dark";

const CHOICES: { value: ThemeChoice; label: string; icon: typeof Sun }[] = [
  { value: "system", label: "System theme", icon: Monitor },
  { value: "light", label: "Light theme", icon: Sun },
  { value: "dark", label: "Dark theme", icon: Moon },
];

/**
 * System, light or dark. The choice is a cookie, so the server renders the chosen theme on the next
 * page with no flash; "system" follows the operating system's setting through CSS alone.
 */
export function ThemeToggle({ initial }: { initial: ThemeChoice }) {
  const [choice, setChoice] = useState<ThemeChoice>(initial);
  function choose(next: ThemeChoice) {
    setChoice(next);
    if (next === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = next;
    document.cookie = `theme=${next}; path=/; max-age=${next === "system" ? 0 : 365 * 24 * 3600}; samesite=lax`;
  }
  return (
    <div role="group" aria-label="Colour theme" className="inline-flex rounded-md border border-border bg-card p-0.5">
      {CHOICES.map(({ value, label, icon: Icon }) => (
        <button
          key={value}
          type="button"
          aria-label={label}
          aria-pressed={choice === value}
          title={label}
          onClick={() => choose(value)}
          className={cn("rounded p-1.5 text-muted-foreground hover:text-foreground", choice === value && "bg-muted text-foreground")}
        >
          <Icon aria-hidden="true" className="size-4" />
        </button>
      ))}
    </div>
  );
}
