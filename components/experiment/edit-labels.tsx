"use client";

import { Pencil } from "lucide-react";
import dynamic from "next/dynamic";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Skeleton } from "@/components/ui/skeleton";
import { useToast } from "@/components/ui/toast";

const EditLabelsForm = dynamic(() => import("./edit-labels-form"), { ssr: false, loading: () => <Skeleton className="h-56" /> });

/** Renames and annotates an experiment (editors and admins), in a dialog. */
export function EditLabels({ experimentId, name, notes }: { experimentId: string; name: string | null; notes: string | null }) {
  const router = useRouter();
  const notify = useToast();
  const [open, setOpen] = useState(false);
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      trigger={
        <Button size="sm">
          <Pencil aria-hidden="true" />
          Edit name and notes
        </Button>
      }
      title="Name and notes"
      description="Lists, filters and share banners show the name; leave it empty to show the id instead."
    >
      <EditLabelsForm
        experimentId={experimentId}
        initialName={name}
        initialNotes={notes}
        onSaved={() => {
          setOpen(false);
          notify({ title: "Name and notes saved" });
          router.refresh();
        }}
      />
    </Dialog>
  );
}
