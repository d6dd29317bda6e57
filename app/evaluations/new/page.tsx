import type { Metadata } from "next";
import { NewEvaluationForm } from "@/components/evaluations/new-evaluation-form";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New evaluation" };

export default async function NewEvaluationPage() {
  await requirePagePermission("evaluation:write", "/evaluations/new");
  return (
    <>
      <PageHeader
        title="New evaluation"
        crumbs={[{ href: "/evaluations", label: "Evaluations" }]}
        description="Name the evaluation and declare how each tool's effects end; then send its runs with npm run ingest or the API. The policy can be changed later: each change is a new version and recomputes the audit."
      />
      <NewEvaluationForm />
    </>
  );
}
