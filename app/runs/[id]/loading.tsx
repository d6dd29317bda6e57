import { PageLoading } from "@/components/ui/skeleton";

/** Shown while the page's data is queried. */
export default function Loading() {
  return <PageLoading label="Loading the run…" />;
}
