// Where a search text occurs in a list of texts (the text nodes of a transcript as the page shows them): the run page
// marks each occurrence and steps through them. Pure: the DOM side (components/runs/transcript-search.tsx) hands in strings.

/** One occurrence: the text it is in (by index) and its character range in that text. */
export interface TextMatch {
  text: number;
  start: number;
  end: number;
}

/** Every occurrence of `needle` in `texts`, in order, whatever the case; none for an empty needle. Occurrences do not overlap. */
export function findMatches(texts: readonly string[], needle: string): TextMatch[] {
  const wanted = needle.trim().toLocaleLowerCase("en-US");
  if (wanted === "") return [];
  const matches: TextMatch[] = [];
  texts.forEach((text, index) => {
    const lower = text.toLocaleLowerCase("en-US");
    // Lower-casing that changes a text's length would shift the offsets: such a text is searched as it is.
    const haystack = lower.length === text.length ? lower : text;
    for (let at = haystack.indexOf(wanted); at !== -1; at = haystack.indexOf(wanted, at + wanted.length))
      matches.push({ text: index, start: at, end: at + wanted.length });
  });
  return matches;
}

/** The match after (step 1) or before (step −1) `current`, going round at either end; 0 when there is none yet. */
export function stepMatch(current: number, count: number, step: 1 | -1): number {
  if (count === 0) return 0;
  return (((current + step) % count) + count) % count;
}
