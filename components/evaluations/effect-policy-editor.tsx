"use client";

import { Plus, Trash2 } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Fieldset, Input, Select } from "@/components/ui/field";
import { policyFromRows, type PolicyRow } from "@/lib/evaluations/policy-rows";
import { EFFECT_CLASSES, type EffectClass } from "@/lib/evaluations/vocabulary";

const CLASS_MEANINGS: Record<EffectClass, string> = {
  read_only: "read_only: changes nothing",
  sync_confirmed: "sync_confirmed: the return proves it terminal",
  async_handle: "async_handle: acknowledged before applied",
  external: "external: outside the lab's reach",
};

/**
 * The effect policy as editable rows (tool name or `*` pattern → class, and optional surface templates): add, change, remove. The
 * rows are the caller's state; `policyFromRows` turns them into the body. `suggestions` are tools
 * seen in the runs that no row names yet, offered as one-click rows. Once the form has shown an error,
 * every bad row says why below it, and stops saying so as soon as it is fixed.
 */
export function EffectPolicyEditor({
  id,
  rows,
  onChange,
  error,
  suggestions = [],
}: {
  id: string;
  rows: PolicyRow[];
  onChange: (rows: PolicyRow[]) => void;
  error?: string;
  suggestions?: readonly string[];
}) {
  const update = (index: number, change: Partial<PolicyRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  const add = (tool = "") => onChange([...rows, { tool, effectClass: "async_handle" }]);
  const checked = error ? policyFromRows(rows) : null;
  const rowProblems = new Map(checked && !checked.ok ? checked.problems.map((p) => [p.row, p.belowRow]) : []);
  const hint =
    "An exact name beats a pattern; a longer pattern a shorter one. A tool no row names is unclassified: relevant, never silently read-only. " +
    "A row's reads and writes templates name the state each call touches from its arguments: fs:{path} is the call's argument path after fs: (docs/evaluations.md).";
  return (
    <Fieldset id={id} legend="Effect policy" hint={hint} error={error} data-field={id} tabIndex={-1} className="space-y-3">
      {rows.length === 0 ? <p className="text-sm text-muted-foreground">No tool is named: every tool is unclassified.</p> : null}
      <ol className="space-y-2" data-testid="policy-rows">
        {rows.map((row, i) => {
          const problem = rowProblems.get(i + 1);
          const problemId = `${id}-row-${i + 1}-error`;
          return (
            <li key={i} className="grid grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto] items-center gap-2" data-testid="policy-row">
              <Input
                aria-label={`Tool name or pattern, row ${i + 1}`}
                value={row.tool}
                onChange={(e) => update(i, { tool: e.target.value })}
                placeholder="e.g. bank.transfer or bank.*"
                autoComplete="off"
                aria-invalid={problem ? true : undefined}
                aria-describedby={problem ? problemId : undefined}
              />
              <Select
                aria-label={`Class, row ${i + 1}`}
                value={row.effectClass}
                onChange={(e) => update(i, { effectClass: e.target.value as EffectClass })}
              >
                {EFFECT_CLASSES.map((cls) => (
                  <option key={cls} value={cls}>
                    {CLASS_MEANINGS[cls]}
                  </option>
                ))}
              </Select>
              <Button
                size="sm"
                variant="ghost"
                onClick={() => onChange(rows.filter((_, j) => j !== i))}
                aria-label={`Remove row ${i + 1}${row.tool ? ` (${row.tool})` : ""}`}
              >
                <Trash2 aria-hidden="true" />
              </Button>
              <div className="col-span-2 grid grid-cols-2 gap-2">
                <Input
                  aria-label={`Reads template, row ${i + 1}`}
                  value={row.reads ?? ""}
                  onChange={(e) => update(i, { reads: e.target.value })}
                  placeholder="reads, e.g. fs:{path} (optional)"
                  autoComplete="off"
                  className="font-mono text-xs"
                />
                <Input
                  aria-label={`Writes template, row ${i + 1}`}
                  value={row.writes ?? ""}
                  onChange={(e) => update(i, { writes: e.target.value })}
                  placeholder="writes, e.g. fs:{path} (optional)"
                  autoComplete="off"
                  className="font-mono text-xs"
                />
              </div>
              {problem ? (
                <p id={problemId} className="col-span-3 text-sm font-medium text-danger" data-testid="policy-row-error">
                  {problem}
                </p>
              ) : null}
            </li>
          );
        })}
      </ol>
      <div className="flex flex-wrap items-center gap-2">
        <Button size="sm" onClick={() => add()}>
          <Plus aria-hidden="true" />
          Add a tool
        </Button>
        {suggestions.map((tool) => (
          <Button
            key={tool}
            size="sm"
            variant="ghost"
            onClick={() => add(tool)}
            aria-label={`Add a row for ${tool} (seen in the runs, unclassified)`}
          >
            <Plus aria-hidden="true" />
            <code>{tool}</code>
          </Button>
        ))}
      </div>
    </Fieldset>
  );
}
