// A long page's contents: its sections grouped as the contents bar names them (components/ui/contents-bar.tsx).

/** The contents bar's groups, in the order the bar lists them and the pages place them. */
export const CONTENTS_GROUPS = ["Headline", "Results", "Statistics", "Runs", "Settings"] as const;
export type ContentsGroup = (typeof CONTENTS_GROUPS)[number];

/** A page's section ids by group, each in page order: a group's link goes to its first section. */
export type PageContents = Partial<Record<ContentsGroup, readonly string[]>>;

/** The groups the page has, in the bar's order, each with the section its link goes to. */
export function contentsLinks(contents: PageContents): { group: ContentsGroup; target: string }[] {
  return CONTENTS_GROUPS.flatMap((group) => {
    const target = contents[group]?.[0];
    return target ? [{ group, target }] : [];
  });
}

/**
 * The group being read: that of the lowest section whose top has reached `line` (just under the
 * sticky bars); once the page is scrolled to its end, the last section's, since the last sections of
 * a page may never reach the line; above every section, the first one's. Null when there is no section.
 */
export function currentGroup(
  sections: readonly { group: ContentsGroup; top: number }[],
  line: number,
  atEnd: boolean,
): ContentsGroup | null {
  if (sections.length === 0) return null;
  const byTop = [...sections].sort((a, b) => a.top - b.top);
  if (atEnd) return byTop.at(-1)!.group;
  return (byTop.findLast((s) => s.top <= line) ?? byTop[0]!).group;
}
