import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SetupForm } from "@/components/account/setup-form";
import { Card } from "@/components/ui/card";
import { getDb } from "@/lib/db/web-process-db";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "First-run setup" };

/** Works only while no account exists; afterwards it sends visitors to sign in. */
export default async function SetupPage() {
  if ((await getDb().user.count()) > 0) redirect("/login");
  return (
    <Card className="mx-auto mt-10 max-w-md space-y-5 p-6">
      <h1 className="text-xl font-semibold">First-run setup</h1>
      <p className="text-sm text-muted-foreground">
        No account exists yet. Create the first admin; admins then create everyone else&apos;s accounts. (From a shell:{" "}
        <code>npm run user:create -- --email E --password P --role admin</code>.)
      </p>
      <SetupForm />
    </Card>
  );
}
