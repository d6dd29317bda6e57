import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/account/login-form";
import { Card } from "@/components/ui/card";
import { pagePrincipal } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/web-process-db";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

/** Only same-site paths: a `next` pointing elsewhere would make sign-in an open redirect. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const next = safeNext((await searchParams).next);
  if (await pagePrincipal()) redirect(next);
  if ((await getDb().user.count()) === 0) redirect("/setup");
  return (
    <Card className="mx-auto mt-10 max-w-sm space-y-5 p-6">
      <h1 className="text-xl font-semibold">Sign in</h1>
      <LoginForm next={next} />
      <p className="text-sm text-muted-foreground">Accounts are made by an admin. Reviewers sent a share link need no account.</p>
    </Card>
  );
}
