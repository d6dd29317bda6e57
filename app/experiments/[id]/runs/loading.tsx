/** Shown while the runs are queried. */
export default function LoadingRuns() {
  return (
    <p role="status" aria-live="polite">
      Loading runs…
    </p>
  );
}
