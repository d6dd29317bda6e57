import { SearchX } from "lucide-react";
import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";

/** Unknown paths and ids: inside the app's frame, with a way back. */
export default function NotFound() {
  return (
    <div className="mx-auto max-w-xl py-10">
      <h1 className="mb-4 text-2xl font-semibold">Not found</h1>
      <EmptyState icon={SearchX} title="This page could not be found.">
        <p>The link may be mistyped, or what it named was deleted.</p>
        <p>
          <Link href="/">Back to experiments</Link>
        </p>
      </EmptyState>
    </div>
  );
}
