"use client";

import { useEffect, useState } from "react";
import { CONTENTS_GROUPS, contentsLinks, currentGroup, type ContentsGroup, type PageContents } from "@/lib/format/contents";
import { cn } from "./cn";

/**
 * A long page's contents: one in-page link per group it has (Headline, Results, Statistics, Runs,
 * Settings), sticky under the app's header from lg up. Plain anchors, so it works before (or
 * without) JavaScript; once hydrated, the group being read is marked (aria-current) as the page scrolls.
 */
export function ContentsBar({ contents }: { contents: PageContents }) {
  const links = contentsLinks(contents);
  const [current, setCurrent] = useState<ContentsGroup | null>(null);

  useEffect(() => {
    let frame = 0;
    const update = () => {
      frame = 0;
      // Looked up on each update rather than observed once: sections stream in after hydration.
      const sections = CONTENTS_GROUPS.flatMap((group) =>
        (contents[group] ?? []).flatMap((id) => {
          const element = document.getElementById(id);
          return element ? [{ group, top: element.getBoundingClientRect().top }] : [];
        }),
      );
      // A quarter down the screen: below where a jump puts a section (under the sticky bars, scroll-mt-28), on a laptop and a phone.
      const line = window.innerHeight / 4;
      const atEnd = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
      setCurrent(currentGroup(sections, line, atEnd));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(update);
    };
    schedule();
    window.addEventListener("scroll", schedule, { passive: true });
    window.addEventListener("resize", schedule);
    // The page grows as its sections stream in (on a first load or a client-side navigation), with nothing scrolled.
    const growth = new ResizeObserver(schedule);
    growth.observe(document.body);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener("scroll", schedule);
      window.removeEventListener("resize", schedule);
      growth.disconnect();
    };
  }, [contents]);

  return (
    <nav
      aria-label="Contents"
      data-testid="contents-bar"
      // top: the app header's height (h-8 controls, py-2, a 1px border), so that the bar sits just under it.
      className="z-20 -mx-1 mb-4 border-b border-border bg-background/95 px-1 py-1.5 backdrop-blur lg:sticky lg:top-[49px]"
    >
      <ul className="flex gap-1 overflow-x-auto">
        {links.map(({ group, target }) => (
          <li key={group}>
            <a
              href={`#${target}`}
              aria-current={current === group ? "location" : undefined}
              data-testid={`contents-${group.toLowerCase()}`}
              className={cn(
                "inline-flex h-8 items-center rounded-md px-3 text-sm font-medium whitespace-nowrap text-muted-foreground no-underline hover:bg-muted hover:text-foreground",
                current === group && "bg-accent text-foreground underline decoration-2 underline-offset-4",
              )}
            >
              {group}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
