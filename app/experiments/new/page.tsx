import type { Metadata } from "next";
import { NewExperimentForm } from "@/components/new-experiment-form";
import { requirePagePermission } from "@/lib/auth/guard";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New experiment" };

export default async function NewExperimentPage() {
  await requirePagePermission("experiment:run", "/experiments/new");
  return (
    <>
      <h1>New experiment</h1>
      <p className="muted">Every field starts at the paper&apos;s grid. Submitting enqueues one job per unit for the replay workers and opens the experiment.</p>
      <NewExperimentForm />
    </>
  );
}
