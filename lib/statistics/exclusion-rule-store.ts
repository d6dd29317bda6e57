// Declared exclusion rules in PostgreSQL (docs/statistics.md, Declared exclusion rules): every experiment and evaluation has a
// version 1 (the migration's trigger stores the default rule; a declaration at creation replaces
// it in the creating transaction); changing the rule appends the next version with who, when and
// why, from the version the editor saw (a stale one is refused, 409). Old versions are kept.
import { z } from "zod";
import type { Db } from "../db/prisma";
import type { SqlClient } from "../db/sql-transaction";
import { conflict, notFound } from "../errors";
import { Prisma } from "../generated/prisma/client";
import type { RuleHistory, RuleVersion } from "./answer-schema";
import { exclusionRuleSchema, type ChangeExclusionRuleBody, type ExclusionRule, type ExclusionRuleDeclaration } from "./exclusion-rule";
import { exclusionRuleIdentity } from "./exclusion-rule-hash";
import { rowsOf } from "../db/rows";

/** Whose rule: an experiment's or an evaluation's. */
export type RuleSubject = { kind: "experiment"; id: string } | { kind: "evaluation"; id: string };

const subjectWhere = (subject: RuleSubject) =>
  subject.kind === "experiment" ? { experimentId: subject.id } : { evaluationId: subject.id };

function storedColumns(rule: ExclusionRule) {
  const identity = exclusionRuleIdentity(rule);
  return { rule: rule as unknown as Prisma.InputJsonValue, canonical: identity.canonical, hash: identity.hash };
}

/** Replaces the default version 1 the trigger stored with the rule declared at creation (inside the creating transaction). */
export async function declareRuleAtCreation(
  tx: Prisma.TransactionClient,
  subject: RuleSubject,
  declaration: ExclusionRuleDeclaration,
  createdById: string | null,
): Promise<void> {
  const { count } = await tx.exclusionRuleVersion.updateMany({
    where: { ...subjectWhere(subject), version: 1 },
    data: { ...storedColumns({ ...declaration, version: 1 }), reason: "declared at creation", createdById },
  });
  if (count !== 1)
    throw new Error(`${subject.kind} ${subject.id} has no version 1 of its exclusion rule (the migration's trigger stores one)`);
}

/** Appends the next version from `baseVersion` (409 with both versions when someone changed it since); 404 for an unknown subject. */
export async function changeExclusionRule(
  db: Db,
  subject: RuleSubject,
  body: ChangeExclusionRuleBody,
  createdById: string | null,
): Promise<{ version: number; hash: string }> {
  return db.$transaction(async (tx) => {
    // The subject's row, locked: two changes from one base version cannot both pass the check.
    const locked =
      subject.kind === "experiment"
        ? rowsOf(
            z.object({ version: z.number(), kind: z.string() }),
            await tx.$queryRaw`SELECT exclusion_rule_version AS version, kind FROM experiments WHERE id = ${subject.id}::uuid FOR UPDATE`,
          )
        : rowsOf(
            z.object({ version: z.number(), kind: z.string() }),
            await tx.$queryRaw`SELECT exclusion_rule_version AS version, 'evaluation' AS kind FROM evaluations WHERE id = ${subject.id}::uuid FOR UPDATE`,
          );
    if (locked.length === 0) throw notFound(subject.kind);
    // A canary experiment stores no runs and has no statistics: a rule would apply to nothing, and a new version of it would mislead.
    if (locked[0]!.kind === "canary")
      throw conflict(
        "canary_experiment",
        "a canary experiment has no runs for an exclusion rule to apply to (its results are per surface: GET …/canary); nothing was changed",
      );
    const current = locked[0]!.version;
    if (current !== body.baseVersion) {
      const stored = await tx.exclusionRuleVersion.findUniqueOrThrow({
        where:
          subject.kind === "experiment"
            ? { experimentId_version: { experimentId: subject.id, version: current } }
            : { evaluationId_version: { evaluationId: subject.id, version: current } },
      });
      throw conflict(
        "edit_conflict",
        `baseVersion: the rule is at version ${current} now, not ${body.baseVersion}; nothing was changed. Compare both and change it again from version ${current}.`,
        "baseVersion",
        {
          current: { version: current, rule: stored.rule },
          yours: body.rule,
        },
      );
    }
    const version = current + 1;
    const rule: ExclusionRule = { ...body.rule, version };
    await tx.exclusionRuleVersion.create({
      data: { ...subjectWhere(subject), version, ...storedColumns(rule), reason: body.reason, createdById },
    });
    if (subject.kind === "experiment") await tx.experiment.update({ where: { id: subject.id }, data: { exclusionRuleVersion: version } });
    else await tx.evaluation.update({ where: { id: subject.id }, data: { exclusionRuleVersion: version } });
    return { version, hash: exclusionRuleIdentity(rule).hash };
  });
}

const versionRow = z.object({
  version: z.number().int(),
  rule: z.unknown(),
  canonical: z.string(),
  hash: z.string(),
  reason: z.string(),
  created_by: z.string().nullable(),
  created_at: z.date(),
});

/**
 * The subject's versions, newest first, `limit` of them at most. Raw SQL: the experiment and evaluation
 * pages read these on every request, and Prisma compiles a model query on every call (~0.5 ms of CPU).
 */
async function ruleVersions(db: SqlClient, subject: RuleSubject, limit: number | null): Promise<RuleVersion[]> {
  const owner =
    subject.kind === "experiment" ? Prisma.sql`v.experiment_id = ${subject.id}::uuid` : Prisma.sql`v.evaluation_id = ${subject.id}::uuid`;
  const rows = rowsOf(
    versionRow,
    await db.$queryRaw`
      SELECT v.version, v.rule, v.canonical, v.hash, v.reason, u.email AS created_by, v.created_at
        FROM exclusion_rule_versions v LEFT JOIN users u ON u.id = v.created_by_id
       WHERE ${owner} ORDER BY v.version DESC LIMIT ${limit}`,
  );
  return rows.map((row) => ({
    version: row.version,
    hash: row.hash,
    canonical: row.canonical,
    rule: exclusionRuleSchema.parse(row.rule),
    reason: row.reason,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
  }));
}

/** Every version, newest first, and the current one (the highest); 404 for an unknown subject. */
export async function exclusionRuleHistory(db: SqlClient, subject: RuleSubject): Promise<RuleHistory> {
  const versions = await ruleVersions(db, subject, null);
  if (versions.length === 0) throw notFound(subject.kind);
  return { current: versions[0]!, versions };
}

/** The current version alone (one indexed row); 404 for an unknown subject. */
export async function currentExclusionRule(db: SqlClient, subject: RuleSubject): Promise<RuleVersion> {
  const [current] = await ruleVersions(db, subject, 1);
  if (!current) throw notFound(subject.kind);
  return current;
}

/** Where a statistics answer's rule came from, in words (`declaredBy`) and in parts (`declared`); `note` qualifies the reason. */
export function whoDeclared(version: RuleVersion, note: string | null = null) {
  const by = version.createdBy ? ` by ${version.createdBy}` : "";
  return {
    declaredBy: `version ${version.version}, stored ${version.createdAt}${by}: ${version.reason}${note ? ` (${note})` : ""}`,
    declared: { at: version.createdAt, by: version.createdBy, reason: version.reason, note },
  };
}
