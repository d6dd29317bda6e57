/** Shown while the run is loaded. */
export default function LoadingRun() {
  return (
    <p role="status" aria-live="polite">
      Loading the run…
    </p>
  );
}
