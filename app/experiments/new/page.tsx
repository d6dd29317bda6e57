import type { Metadata } from "next";
import { NewExperimentForm } from "@/components/experiment/new-experiment-form";
import { PageHeader } from "@/components/ui/page-header";
import { requirePagePermission } from "@/lib/auth/guard";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New experiment" };

export default async function NewExperimentPage() {
  await requirePagePermission("experiment:run", "/experiments/new");
  return (
    <>
      <PageHeader
        title="New experiment"
        crumbs={[{ href: "/", label: "Experiments" }]}
        description="Every field starts at the paper's grid. Submitting enqueues one job per unit for the replay workers and opens the experiment."
      />
      <NewExperimentForm />
    </>
  );
}
