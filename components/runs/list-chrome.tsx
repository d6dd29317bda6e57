import Link from "next/link";
import styles from "./runs.module.css";

/** Download links for every row the current filters match (not only the page shown). */
export function ExportLinks({ what, hrefFor }: { what: string; hrefFor: (format: "csv" | "json") => string }) {
  return (
    <p className={styles.downloads}>
      <span>Every matching {what}:</span>
      <a href={hrefFor("csv")} download>
        Download CSV
      </a>
      <a href={hrefFor("json")} download>
        Download JSON
      </a>
    </p>
  );
}

/** Keyset pages: back to the first page, and on to the next while there is one. */
export function Pager({ label, firstHref, nextHref }: { label: string; firstHref: string | null; nextHref: string | null }) {
  return (
    <nav aria-label={label} className={styles.pager}>
      {firstHref ? <Link href={firstHref}>First page</Link> : null}
      {nextHref ? (
        <Link href={nextHref} rel="next">
          Next page
        </Link>
      ) : null}
    </nav>
  );
}
