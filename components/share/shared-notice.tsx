import { Alert } from "@/components/ui/alert";
import { Time } from "@/components/ui/time";
import type { SharedEvaluation } from "@/lib/share/shared-evaluation";
import type { ShareRefusal } from "@/lib/share/refusal";

/** A share link that does not open: why, in words a reader without an account can act on. */
export function SharedRefusal({ refusal }: { refusal: ShareRefusal }) {
  return (
    <div className="mx-auto max-w-xl space-y-4 py-10">
      <h1 className="text-2xl font-semibold">{refusal.title}</h1>
      <Alert tone="warning" role="alert" data-testid="share-refusal" data-code={refusal.code}>
        <p>
          <RefusalMessage refusal={refusal} />
        </p>
      </Alert>
    </div>
  );
}

/** A refusal's words, the instant they name in the reader's time (the exact UTC instant on hover). */
function RefusalMessage({ refusal }: { refusal: ShareRefusal }) {
  if (!refusal.instant) return refusal.message;
  const [before, after] = refusal.message.split(refusal.instant);
  return (
    <>
      {before}
      <Time iso={refusal.instant} relative={false} testId="share-refusal-time" />
      {after}
    </>
  );
}

/**
 * The banner of a page behind an evaluation's share link: read-only, and frozen (what of the runs is
 * as the sender saw it, and what is shown as it is now) or live.
 */
export function SharedRunsBanner({ shared, what }: { shared: SharedEvaluation; what: string }) {
  const { link } = shared;
  return (
    <Alert
      tone="info"
      role="note"
      data-testid="share-banner"
      className="mb-6"
      title={
        <>
          Read-only shared {what} of evaluation “{shared.evaluation.name}”
        </>
      }
    >
      {link.mode === "frozen" ? (
        <p data-testid="share-frozen-note">
          Frozen <Time iso={link.snapshotAt} />: only the runs stored by then, each effect with the evidence recorded by then, and each
          run&apos;s finality under the policy then in force (version {shared.evaluation.effectPolicyVersion}). Analysis units, inherited
          state, recorders and trace spans are shown as they are now: they are not kept as of a time. A run re-sent with changes since is
          named, not shown.
        </p>
      ) : (
        <p>
          Live: the runs as they are now (<Time iso={link.snapshotAt} />
          ).
        </p>
      )}
      <p>
        {link.expiresAt ? (
          <>
            The link expires <Time iso={link.expiresAt} />.
          </>
        ) : (
          <>The link does not expire; its sender can revoke it.</>
        )}
      </p>
    </Alert>
  );
}
