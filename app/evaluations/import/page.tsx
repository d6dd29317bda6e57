import type { Metadata } from "next";
import { ImportLogsForm } from "@/components/evaluations/import-logs-form";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Import logs" };

export default async function ImportLogsPage() {
  await requirePagePermission("evaluation:write", "/evaluations/import");
  return (
    <>
      <PageHeader
        title="Import logs"
        crumbs={[{ href: "/evaluations", label: "Evaluations" }]}
        description="AgentDojo run logs and Inspect logs (.json or .eval), or a zip of them, told apart by their content. Importing a file again changes nothing and says so; each file that cannot be imported is named with the reason."
      />
      <ImportLogsForm />
    </>
  );
}
