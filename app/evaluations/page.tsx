import { Gauge } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluations" };

/** A placeholder for the evaluations that the next issue imports (Inspect and AgentDojo logs). */
export default async function EvaluationsPage() {
  await requirePagePermission("results:read", "/evaluations");
  return (
    <>
      <PageHeader title="Evaluations" description="Real agent evaluations, imported from their logs and checked for outcome finality and cross-run separation." />
      <EmptyState icon={Gauge} title="Coming: importing evaluations" data-testid="evaluations-coming">
        <p>
          This section will list evaluations imported from Inspect and AgentDojo logs, with the same finality and separation checks as the <Link href="/">replay experiments</Link>.
          Until then, nothing is stored here.
        </p>
      </EmptyState>
    </>
  );
}
