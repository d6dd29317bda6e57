// A statement's plan as PostgreSQL chose it (EXPLAIN (FORMAT JSON), not run), and what the db tests
// of a plan's shape read from it: how each table is read, the node types, the CTEs a nested loop scans
// again for every outer row.
import { z } from "zod";
import type { Db } from "../db/prisma";
import { Prisma } from "../generated/prisma/client";
import type { Tx } from "../evaluations/audit/lock";

export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "CTE Name"?: string;
  "Parent Relationship"?: string;
  Plans?: PlanNode[];
}

const planNode: z.ZodType<PlanNode> = z.lazy(() =>
  z.object({
    "Node Type": z.string(),
    "Relation Name": z.string().optional(),
    "Index Name": z.string().optional(),
    "CTE Name": z.string().optional(),
    "Parent Relationship": z.string().optional(),
    Plans: z.array(planNode).optional(),
  }),
);

/** The plan of `statement`, planned in a transaction after `prepare` (planner switches, say); nothing is run. */
export async function planOf(db: Db, statement: Prisma.Sql, prepare: <T>(tx: Tx, run: () => Promise<T>) => Promise<T>): Promise<PlanNode> {
  const rows = await db.$transaction((tx) => prepare(tx, () => tx.$queryRaw(Prisma.sql`EXPLAIN (FORMAT JSON) ${statement}`)));
  return z.tuple([z.object({ "QUERY PLAN": z.tuple([z.object({ Plan: planNode })]) })]).parse(rows)[0]["QUERY PLAN"][0].Plan;
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** How each table is read: "table by index" (or by the scan's node type), once each, sorted. */
export const planReads = (plan: PlanNode): string[] =>
  [
    ...new Set(
      nodesOf(plan)
        .filter((n) => n["Node Type"].endsWith("Scan") && n["Relation Name"])
        .map((n) => `${n["Relation Name"]} by ${n["Index Name"] ?? n["Node Type"]}`),
    ),
  ].sort();

/** Every node type of the plan, once each. */
export const planNodeTypes = (plan: PlanNode): Set<string> => new Set(nodesOf(plan).map((n) => n["Node Type"]));

/** The CTEs scanned on the inner side of a nested loop (again for every outer row), once each, sorted. */
export const cteScansInLoops = (plan: PlanNode): string[] =>
  [
    ...new Set(
      nodesOf(plan)
        .filter((n) => n["Node Type"] === "Nested Loop")
        .flatMap((loop) => loop.Plans!.filter((child) => child["Parent Relationship"] === "Inner").flatMap(nodesOf))
        .filter((n) => n["Node Type"] === "CTE Scan")
        .map((n) => n["CTE Name"]!),
    ),
  ].sort();
