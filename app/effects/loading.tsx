/** Shown while the open-effects records are queried. */
export default function LoadingEffects() {
  return (
    <p role="status" aria-live="polite">
      Loading open effects…
    </p>
  );
}
