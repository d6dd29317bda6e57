"use client";

/** Shown when the records could not be loaded (the server log has the cause; the page never shows it). */
export default function EffectsError({ retry }: { error: unknown; retry: () => void }) {
  return (
    <div className="error" role="alert">
      <p>The open-effects records could not be loaded.</p>
      <button type="button" onClick={() => retry()}>
        Try again
      </button>
    </div>
  );
}
