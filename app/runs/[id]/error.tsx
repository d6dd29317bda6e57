"use client";

/** Shown when the run could not be loaded (the server log has the cause; the page never shows it). */
export default function RunError({ retry }: { error: unknown; retry: () => void }) {
  return (
    <div className="error" role="alert">
      <p>The run could not be loaded.</p>
      <button type="button" onClick={() => retry()}>
        Try again
      </button>
    </div>
  );
}
