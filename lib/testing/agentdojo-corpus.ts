// A corpus of AgentDojo-shaped run logs for `npm run bench:import` and the importer's process tests:
// the five real fixtures mutated into every variant their README documents, laid out as AgentDojo's
// repository lays them out (`runs/{pipeline}/{suite}/{user_task}/{attack|none}/{injection|none}.json`).
// Deterministic: log `i` is the same every time.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { AGENTDOJO_RUNS } from "./importer-fixtures";

/** The variants of lib/testing/fixtures/agentdojo/README.md, one per log in turn. */
export const CORPUS_VARIANTS = [
  "as recorded",
  "content blocks (newer format, evaluation_timestamp)",
  "empty call ids",
  "null call ids",
  "missing call ids",
  "invented tools and an empty function name",
  "empty messages",
  "error file (no utility, security or duration)",
  "pipeline_name local, keys in reverse order",
  "no tool calls; a write that raised",
] as const;

/** Of the variants above, the ones that are skipped (no endpoint label): every tenth log. */
export const SKIPPED_VARIANTS = new Set<number>([7]);

const PIPELINES = Array.from({ length: 29 }, (_, k) => `pipeline-${String(k).padStart(2, "0")}`);
const TASKS_PER_FIXTURE = 40;

type Log = Record<string, unknown> & { messages: Message[] };
type Call = { function: string; args: Record<string, unknown>; id?: string | null };
type Message = {
  role: string;
  content: unknown;
  tool_calls?: Call[] | null;
  tool_call?: Call;
  tool_call_id?: string | null;
  error?: string | null;
};

function fixtures(): Log[] {
  return readdirSync(AGENTDOJO_RUNS)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => JSON.parse(readFileSync(path.join(AGENTDOJO_RUNS, name), "utf8")) as Log);
}

const blocks = (content: unknown) => (typeof content === "string" ? [{ type: "text", content }] : content);
const calls = (log: Log) => log.messages.flatMap((m) => [...(m.tool_calls ?? []), ...(m.tool_call ? [m.tool_call] : [])]);

function mutate(log: Log, variant: number): Log {
  switch (variant) {
    case 1:
      return {
        ...log,
        messages: log.messages.map((m) => ({ ...m, content: m.content === null ? null : blocks(m.content) })),
        benchmark_version: "v1.2.1",
        evaluation_timestamp: "2025-03-04 12:34:56",
        agentdojo_package_version: "0.1.34",
      };
    case 2:
    case 3:
    case 4:
      for (const call of calls(log)) {
        if (variant === 4) delete call.id;
        else call.id = variant === 2 ? "" : null;
      }
      return log;
    case 5: {
      const invented: Call[] = [
        { function: "get_current_year", args: {}, id: "call_invented" },
        { function: "", args: { x: 1 }, id: "call_empty" },
      ];
      const answers: Message[] = invented.map((call) => ({
        role: "tool",
        content: "",
        tool_call_id: call.id,
        tool_call: call,
        error: `ValueError: no tool named ${JSON.stringify(call.function)}`,
      }));
      return {
        ...log,
        messages: [
          ...log.messages.slice(0, 2),
          { role: "assistant", content: null, tool_calls: invented },
          ...answers,
          ...log.messages.slice(2),
        ],
      };
    }
    case 6:
      return { ...log, messages: [] };
    case 7: {
      const { utility: _u, security: _s, duration: _d, ...rest } = log;
      return { ...rest, messages: log.messages.slice(0, 3), error: "context_length_exceeded" };
    }
    case 8:
      return Object.fromEntries(Object.entries({ ...log, pipeline_name: "local" }).reverse()) as Log;
    case 9: {
      // The first turn's calls become a plain answer; a later tool answer raises.
      const firstTurn = log.messages.findIndex((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0);
      const messages = log.messages.map((m) => ({ ...m }));
      const raised = messages.findLastIndex((m) => m.role === "tool");
      if (raised >= 0) messages[raised] = { ...messages[raised]!, content: "", error: "ValueError: Insufficient funds" };
      if (firstTurn >= 0) messages[firstTurn] = { ...messages[firstTurn]!, tool_calls: variant % 2 ? [] : null };
      return { ...log, messages };
    }
    default:
      return log;
  }
}

/** Writes `count` logs under `dir` and answers their paths' count per variant. */
export function writeAgentDojoCorpus(dir: string, count: number): { files: number; perVariant: number[]; skipped: number } {
  const bases = fixtures();
  const perVariant = CORPUS_VARIANTS.map(() => 0);
  const made = new Set<string>();
  for (let i = 0; i < count; i++) {
    // i ↔ (pipeline, fixture, task, injection): every path distinct.
    const pipeline = PIPELINES[i % PIPELINES.length]!;
    const rest = Math.floor(i / PIPELINES.length);
    const b = rest % bases.length;
    const task = Math.floor(rest / bases.length) % TASKS_PER_FIXTURE;
    const injection = Math.floor(rest / (bases.length * TASKS_PER_FIXTURE));
    const base = structuredClone(bases[b]!);
    const userTask = `user_task_${task * bases.length + b}`;
    const attack = injection === 0 ? null : "important_instructions";
    const injectionTask = injection === 0 ? null : `injection_task_${injection - 1}`;
    const variant = i % CORPUS_VARIANTS.length;
    perVariant[variant]! += 1;
    const log = mutate(
      {
        ...base,
        pipeline_name: pipeline,
        user_task_id: userTask,
        attack_type: attack,
        injection_task_id: injectionTask,
        security: attack ? base.security : true,
      },
      variant,
    );
    const folder = path.join(dir, "runs", pipeline, String(base.suite_name), userTask, attack ?? "none");
    if (!made.has(folder)) {
      mkdirSync(folder, { recursive: true });
      made.add(folder);
    }
    writeFileSync(path.join(folder, `${injectionTask ?? "none"}.json`), JSON.stringify(log));
  }
  return { files: count, perVariant, skipped: perVariant.filter((_, v) => SKIPPED_VARIANTS.has(v)).reduce((a, b) => a + b, 0) };
}
