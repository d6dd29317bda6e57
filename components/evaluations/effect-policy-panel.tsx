import { EmptyState } from "@/components/ui/empty-state";
import { Section } from "@/components/ui/page-header";
import { RowsTable } from "@/components/ui/rows-table";
import { Time } from "@/components/ui/time";
import type { EvaluationDetail } from "@/lib/evaluations/read/read-boundary";
import { describeEntry, entryClass, entryTemplates, toolClassifier } from "@/lib/evaluations/policy";
import type { ToolClass } from "@/lib/evaluations/vocabulary";
import type { ToolEntry } from "@/lib/evaluations/effect-policy-schema";
import type { StoredToolSuggestion } from "@/lib/evaluations/tool-suggestions";
import type { TemplateSuggestion } from "@/lib/evaluations/read/template-suggestions";
import { OpenOnRequest } from "@/components/ui/open-on-request";
import { LazyPolicyVersionForm } from "./lazy-policy-version-form";

/**
 * The policy in force (its version and rows), the tools seen in the runs with their counts and
 * classes, the classes recorders suggest, the earlier versions, and the form for a new one.
 */
export function EffectPolicyPanel({
  evaluation,
  tools,
  versions,
  edits,
  suggestions = [],
  templateSuggestions = [],
}: {
  evaluation: Pick<EvaluationDetail, "id" | "effectPolicyVersion" | "effectPolicy" | "pendingPolicy">;
  /** `writes`: of its effects, those that show a write (given to those who edit the policy). */
  tools: { tool: string; class: ToolClass; effects: number; calls: number; writes?: number }[];
  versions: { version: number; tools: Record<string, ToolEntry>; createdAt: Date }[];
  edits: boolean;
  suggestions?: StoredToolSuggestion[];
  /** Surface templates suggested for tools whose entry has none: shown, and offered to the form, never applied. */
  templateSuggestions?: TemplateSuggestion[];
}) {
  const declared = Object.entries(evaluation.effectPolicy.tools);
  const classOf = toolClassifier(evaluation.effectPolicy);
  const open = suggestions.filter((s) => classOf(s.tool) !== s.suggestedClass);
  return (
    <Section
      title={`Effect policy, version ${evaluation.effectPolicyVersion}`}
      id="policy"
      description="How each tool's effects end; a tool it does not name is unclassified."
      howToRead="How each tool's effects end. A tool the policy does not name is unclassified: relevant, and its runs unresolved, never silently read-only."
    >
      <div className="grid gap-4 lg:grid-cols-2">
        {declared.length === 0 ? (
          <EmptyState title="This version names no tool">
            <p>Every tool is unclassified.</p>
          </EmptyState>
        ) : (
          <RowsTable
            caption={`Declared in version ${evaluation.effectPolicyVersion}`}
            columns={["Tool or pattern", "Class", "Reads", "Writes"]}
            testId="policy-declared"
            rows={declared.map(([tool, entry]) => {
              const { reads, writes } = entryTemplates(entry);
              return [
                { code: tool },
                entryClass(entry),
                reads === undefined ? null : { code: reads },
                writes === undefined ? null : { code: writes },
              ];
            })}
          />
        )}
        {tools.length === 0 ? (
          <EmptyState title="No tool seen yet">
            <p>The runs name no tool in their effects or tool calls.</p>
          </EmptyState>
        ) : (
          <RowsTable
            caption="Tools seen in the runs"
            columns={["Tool", "Effects", "Tool calls", "Class"]}
            numericColumns={[1, 2]}
            testId="tools-seen"
            rows={tools.map((t) => [
              { code: t.tool },
              t.effects,
              t.calls,
              t.class === "unclassified" ? { badge: "warning", text: "unclassified" } : t.class,
            ])}
          />
        )}
      </div>
      {suggestions.length > 0 ? (
        <RowsTable
          caption={`Suggested by recorders: ${open.length} of ${suggestions.length} not in this version. A suggestion counts only once saved into a version.`}
          columns={["Tool", "Suggested class", "Why", "From", "In this version"]}
          testId="tool-suggestions"
          cellClassNames={{ 2: "[overflow-wrap:anywhere]" }}
          rows={suggestions.map((s) => [
            { code: s.tool },
            s.suggestedClass,
            s.reason,
            { code: s.source },
            classOf(s.tool) === s.suggestedClass ? "accepted" : { badge: "warning", text: classOf(s.tool) },
          ])}
        />
      ) : null}
      {templateSuggestions.length > 0 ? (
        <RowsTable
          caption={`Surface templates suggested from the latest runs' argument names: ${templateSuggestions.length}. A template counts only once saved into a version.`}
          columns={["Tool", "Suggested", "Why"]}
          testId="template-suggestions"
          cellClassNames={{ 2: "[overflow-wrap:anywhere]" }}
          rows={templateSuggestions.map((s) => [{ code: s.tool }, { code: `${s.op} ${s.template}` }, s.reason])}
        />
      ) : null}
      {versions.length > 1 ? (
        <details className="rounded-lg border border-border bg-card p-4">
          <summary className="cursor-pointer text-sm font-medium">Every version ({versions.length})</summary>
          <ol className="mt-3 space-y-1 text-sm">
            {versions.map((v) => (
              <li key={v.version}>
                Version {v.version}, <Time iso={v.createdAt.toISOString()} />:{" "}
                {Object.entries(v.tools)
                  .map(([tool, entry]) => `${tool} → ${describeEntry(entry)}`)
                  .join("; ") || "no tool named"}
              </li>
            ))}
          </ol>
        </details>
      ) : null}
      {edits ? (
        <OpenOnRequest label="Declare a new version of the policy" testId="open-policy-form">
          <LazyPolicyVersionForm
            evaluationId={evaluation.id}
            policy={evaluation.pendingPolicy?.policy ?? evaluation.effectPolicy}
            version={evaluation.pendingPolicy?.version ?? evaluation.effectPolicyVersion}
            unclassified={tools.filter((t) => t.class === "unclassified").map((t) => t.tool)}
            writesByTool={Object.fromEntries(tools.flatMap((t) => (t.writes ? [[t.tool, t.writes]] : [])))}
            suggested={open.map((s) => ({ tool: s.tool, effectClass: s.suggestedClass }))}
            suggestedTemplates={templateSuggestions}
          />
        </OpenOnRequest>
      ) : null}
    </Section>
  );
}
