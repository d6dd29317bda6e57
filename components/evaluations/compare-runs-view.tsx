import Link from "next/link";
import type { ReactNode } from "react";
import { LabelText } from "@/components/runs/label-text";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Input, Label } from "@/components/ui/field";
import { Section } from "@/components/ui/page-header";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { alignRuns, effectsOfCalls, type AlignedTurn, type CallEffect, type ComparedCall } from "@/lib/evaluations/read/compare-runs";
import type { EvaluationRunDetail } from "@/lib/evaluations/read/evaluation-run";
import { openReason, type FinalityEffect } from "@/lib/evaluations/finality";
import type { Db } from "@/lib/db/prisma";
import { MESSAGES_PAGE, runMessages, type RunMessagesPage } from "@/lib/evaluations/read/run-messages";
import type { ResolutionStatus, StatusAtScoring, ToolClass } from "@/lib/evaluations/vocabulary";
import { formatDuration } from "@/lib/format/time";
import type { SearchParams } from "@/lib/http/input";

/** A message's text shown beside the other run's: its first part (the run page has all of it). */
const SHOWN_CHARACTERS = 600;

/** Two runs found, each with the first page of its transcript, and how the audit classes a tool. */
export interface ComparedRuns {
  a: EvaluationRunDetail;
  b: EvaluationRunDetail;
  messagesA: RunMessagesPage;
  messagesB: RunMessagesPage;
  classOf: (tool: string) => ToolClass;
}

export const COMPARE_RUNS_DESCRIPTION =
  "Their transcripts aligned by turn (a turn starts at each assistant message), each tool call beside the other run's call of the same tool in the same order, with the effect it made and how the audit counts it. Differences are marked “differs”.";

/** The two runs with the first page of each one's transcript. */
export async function loadComparedRuns(
  db: Db,
  a: EvaluationRunDetail,
  b: EvaluationRunDetail,
  classOf: (tool: string) => ToolClass,
): Promise<ComparedRuns> {
  const [messagesA, messagesB] = await Promise.all([runMessages(db, a.id, 0, MESSAGES_PAGE), runMessages(db, b.id, 0, MESSAGES_PAGE)]);
  return { a, b, messagesA, messagesB, classOf };
}

/**
 * Two runs of an evaluation side by side, below the page's header: the form that names them, then their facts and their
 * transcripts aligned by turn, each tool call beside the call of the other run it matches (by tool and order) with the
 * effect it made and how the audit counts it, every difference marked. Without two runs (`problem`), why not. `path` is
 * the page's own address, `listHref` the runs list, `runHref` a run's page: the owner's pages, or a share link's.
 */
export function CompareRunsView({
  path,
  search,
  listHref,
  runHref,
  compared,
}: {
  path: string;
  search: SearchParams;
  listHref: string;
  runHref: (externalId: string) => string;
  compared: ComparedRuns | { problem: string };
}) {
  const form = (
    <form method="get" action={path} aria-label="Choose two runs" className="flex flex-wrap items-end gap-3">
      <div className="space-y-1">
        <Label htmlFor="compare-a">Run a (external id)</Label>
        <Input id="compare-a" name="a" defaultValue={typeof search.a === "string" ? search.a : ""} maxLength={200} />
      </div>
      <div className="space-y-1">
        <Label htmlFor="compare-b">Run b (external id)</Label>
        <Input id="compare-b" name="b" defaultValue={typeof search.b === "string" ? search.b : ""} maxLength={200} />
      </div>
      <Button type="submit" size="sm">
        Compare
      </Button>
    </form>
  );
  if ("problem" in compared)
    return (
      <div className="space-y-4">
        <Alert tone="danger" role="alert" title="These two runs cannot be compared" data-testid="compare-runs-error">
          <p>{compared.problem}.</p>
          <p>
            Choose two runs on <Link href={listHref}>the runs list</Link>, or give their external ids here.
          </p>
        </Alert>
        {form}
      </div>
    );

  const { a: runA, b: runB, messagesA, messagesB, classOf } = compared;
  const effectsA = callEffects(runA, messagesA, classOf);
  const effectsB = callEffects(runB, messagesB, classOf);
  const turns = alignRuns(messagesA.messages, messagesB.messages, (run, callId) => (run === "a" ? effectsA : effectsB).get(callId) ?? null);
  const differing = turns.filter((t) => t.differences.length > 0).length;

  return (
    <div className="space-y-6">
      {form}
      <Section title="The two runs" description="Each row's values side by side; a row whose values differ is marked.">
        <DataTable caption="The runs' facts and audit" columns={["", "Run a", "Run b", "Differs"]} testId="compare-runs-facts">
          {facts(runA, runB, messagesA, messagesB).map(([label, a, b, differs]) => (
            <tr key={label} className={differs ? "bg-warning/10" : undefined} data-differs={differs || undefined}>
              <RowHead>{label}</RowHead>
              <Td>{a}</Td>
              <Td>{b}</Td>
              <Td>{differs ? <Badge tone="warning">differs</Badge> : <span className="text-muted-foreground">same</span>}</Td>
            </tr>
          ))}
        </DataTable>
        <p className="mt-2 text-sm">
          Open <Link href={runHref(runA.externalId)}>run a ({runA.externalId})</Link> or{" "}
          <Link href={runHref(runB.externalId)}>run b ({runB.externalId})</Link> on its own page.
        </p>
      </Section>
      <Section
        title={`Transcripts by turn (${differing} of ${turns.length} turns differ)`}
        description={
          messagesA.messageCount > MESSAGES_PAGE || messagesB.messageCount > MESSAGES_PAGE
            ? `The first ${MESSAGES_PAGE} messages of each run are compared; the rest are on each run's page.`
            : "Every message of both runs."
        }
      >
        {turns.length === 0 ? (
          <EmptyState title="Neither log holds a conversation" />
        ) : (
          <ol className="space-y-4" data-testid="compare-runs-turns">
            {turns.map((turn) => (
              <TurnView key={turn.index} turn={turn} />
            ))}
          </ol>
        )}
      </Section>
    </div>
  );
}

/** The effect each tool call of the run's transcript made, as the audit counts it under the current policy. */
function callEffects(run: EvaluationRunDetail, page: RunMessagesPage, classOf: (tool: string) => ToolClass): Map<string, CallEffect> {
  const calls = page.messages.flatMap((m) => m.toolCalls ?? []);
  const effects = effectsOfCalls(
    calls,
    run.effects.map((e) => ({ ...e, callId: e.call_id })),
  );
  return new Map(
    [...effects].map(([callId, e]) => {
      const audited: FinalityEffect = {
        effectId: e.effect_id,
        tool: e.tool,
        handle: e.handle,
        requestedAtMs: e.requested_at.getTime(),
        statusAtScoring: e.status_at_scoring as StatusAtScoring,
        resolutions: e.resolutions.map((r) => ({ status: r.status as ResolutionStatus, atMs: Date.parse(r.at) })),
      };
      // An unscored run has no scoring to be open at.
      const reason = run.scoredAt === null ? null : openReason(audited, classOf(e.tool), run.scoredAt.getTime());
      return [callId, { effectId: e.effect_id, statusAtScoring: e.status_at_scoring, openReason: reason }];
    }),
  );
}

type Fact = [label: string, a: ReactNode, b: ReactNode, differs: boolean];

function facts(a: EvaluationRunDetail, b: EvaluationRunDetail, messagesA: RunMessagesPage, messagesB: RunMessagesPage): Fact[] {
  const row = <T,>(label: string, get: (run: EvaluationRunDetail) => T, show: (value: T) => ReactNode = (v) => String(v ?? "—")): Fact => {
    const [x, y] = [get(a), get(b)];
    return [label, show(x), show(y), JSON.stringify(x) !== JSON.stringify(y)];
  };
  const duration = (run: EvaluationRunDetail) => (run.endedAt ? run.endedAt.getTime() - run.startedAt.getTime() : null);
  return [
    // The runs' own names: different by choice, so never marked.
    ["External id", <code key="a">{a.externalId}</code>, <code key="b">{b.externalId}</code>, false],
    row(
      "Task",
      (r) => r.taskId,
      (v) => <code>{v}</code>,
    ),
    row("Attempt", (r) => r.attempt),
    row(
      "Endpoint label",
      (r) => r.endpointLabel,
      (v) => <LabelText value={v} />,
    ),
    row(
      "Terminal label",
      (r) => r.terminalLabel,
      (v) => <LabelText value={v} />,
    ),
    row("Finality", (r) => r.finality),
    row("Why unresolved", (r) => r.unresolvedReason ?? r.unscoredReason),
    row("Score", (r) => r.score),
    row("Duration", duration, (v) => (v === null ? "not recorded" : formatDuration(v))),
    row("Effects", (r) => r.effects.length),
    row(
      "Open at scoring",
      (r) => r.unresolvedEffectId,
      (v) => (v ? <code>{v}</code> : "none"),
    ),
    ["Messages", messagesA.messageCount, messagesB.messageCount, messagesA.messageCount !== messagesB.messageCount],
  ];
}

const clip = (text: string) => (text.length > SHOWN_CHARACTERS ? `${text.slice(0, SHOWN_CHARACTERS)} …` : text);

function TurnView({ turn }: { turn: AlignedTurn }) {
  const differs = turn.differences.length > 0;
  return (
    <li
      className={differs ? "rounded-lg border-2 border-warning p-3" : "rounded-lg border border-border p-3"}
      data-testid="compare-turn"
      data-differs={differs || undefined}
    >
      <h3 className="mb-2 flex flex-wrap items-center gap-2 text-sm font-semibold">
        {turn.index === 0 ? "Prompt (before the first assistant message)" : `Turn ${turn.index}`}
        {differs ? (
          <Badge tone="warning" data-testid="turn-differs">
            differs: {turn.differences.join("; ")}
          </Badge>
        ) : (
          <span className="font-normal text-muted-foreground">same in both runs</span>
        )}
      </h3>
      <div className="grid gap-3 md:grid-cols-2">
        {(["a", "b"] as const).map((side) => (
          <div key={side} className="min-w-0 space-y-2" data-testid={`turn-side-${side}`}>
            <p className="text-xs font-semibold text-muted-foreground">Run {side}</p>
            {turn[side] === null || turn[side].messages.length === 0 ? (
              <p className="text-sm text-muted-foreground italic">no such turn</p>
            ) : (
              turn[side].messages.map((m) => (
                <div key={m.position} className="rounded-md border border-border bg-card p-2 text-sm">
                  <span className="mr-2 text-xs text-muted-foreground">
                    #{m.position + 1} {m.role}
                  </span>
                  <span className="whitespace-pre-wrap [overflow-wrap:anywhere]">{clip(m.content) || "(no text)"}</span>
                </div>
              ))
            )}
          </div>
        ))}
      </div>
      {turn.calls.length > 0 ? (
        <DataTable
          caption={`Tool calls of ${turn.index === 0 ? "the prompt" : `turn ${turn.index}`}, by tool and order`}
          columns={["Tool", "Run a: call, effect and audit", "Run b: call, effect and audit", "Differences"]}
          testId="compare-calls"
        >
          {turn.calls.map((pair, i) => (
            <tr
              key={i}
              className={pair.differences.length ? "bg-warning/10" : undefined}
              data-differs={pair.differences.length > 0 || undefined}
            >
              <RowHead>
                <code>{pair.tool}</code>
              </RowHead>
              <Td className="[overflow-wrap:anywhere]">
                <CallCell call={pair.a} />
              </Td>
              <Td className="[overflow-wrap:anywhere]">
                <CallCell call={pair.b} />
              </Td>
              <Td data-testid="call-differences">
                {pair.differences.length ? (
                  <>
                    <Badge tone="warning">differs</Badge> {pair.differences.join("; ")}
                  </>
                ) : (
                  <span className="text-muted-foreground">same</span>
                )}
              </Td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </li>
  );
}

function CallCell({ call }: { call: ComparedCall | null }) {
  if (call === null) return <span className="text-muted-foreground italic">no such call</span>;
  return (
    <>
      <span className="text-xs text-muted-foreground">{call.id}</span>
      {call.arguments !== undefined ? <pre className="text-xs whitespace-pre-wrap">{clip(JSON.stringify(call.arguments))}</pre> : null}
      <p data-testid="call-audit">
        {call.effect === null
          ? "no effect recorded"
          : `effect ${call.effect.effectId}: ${call.effect.statusAtScoring} at scoring; ${
              call.effect.openReason === null ? "terminal at scoring (final)" : `open at scoring: ${call.effect.openReason}`
            }`}
      </p>
    </>
  );
}
