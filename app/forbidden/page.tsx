import { ShieldAlert } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";

export const metadata: Metadata = { title: "Not allowed" };

export default async function ForbiddenPage({ searchParams }: { searchParams: Promise<{ need?: string }> }) {
  const { need } = await searchParams;
  return (
    <div className="mx-auto max-w-xl py-10">
      <h1 className="mb-4 text-2xl font-semibold">Not allowed</h1>
      <EmptyState icon={ShieldAlert} title="Your role does not allow this page" role="alert">
        <p>
          {need ? (
            <>
              It needs <code>{need}</code>.{" "}
            </>
          ) : null}
          Ask an admin if you need it.
        </p>
        <p>
          <Link href="/">Back to experiments</Link>
        </p>
      </EmptyState>
    </div>
  );
}
