"use client";

import { Pencil } from "lucide-react";
import dynamic from "next/dynamic";
import { useRouter } from "next/navigation";
import { Dialog } from "radix-ui";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { useToast } from "@/components/ui/toast";

const EditLabelsForm = dynamic(() => import("./edit-labels-form"), { ssr: false, loading: () => <Skeleton className="h-56" /> });

/** Renames and annotates an experiment (editors and admins), in a dialog. */
export function EditLabels({ experimentId, name, notes }: { experimentId: string; name: string | null; notes: string | null }) {
  const router = useRouter();
  const notify = useToast();
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <Button size="sm">
          <Pencil aria-hidden="true" />
          Edit name and notes
        </Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/50" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 max-h-[90vh] w-[min(94vw,36rem)] -translate-x-1/2 -translate-y-1/2 overflow-auto rounded-lg border border-border bg-card p-5 text-foreground shadow-lg">
          <Dialog.Title className="text-base font-semibold">Name and notes</Dialog.Title>
          <Dialog.Description className="mb-4 text-sm text-muted-foreground">Lists, filters and share banners show the name; leave it empty to show the id instead.</Dialog.Description>
          <EditLabelsForm
            experimentId={experimentId}
            initialName={name}
            initialNotes={notes}
            onSaved={() => {
              setOpen(false);
              notify({ title: "Name and notes saved" });
              router.refresh();
            }}
            cancel={
              <Dialog.Close asChild>
                <Button>Cancel</Button>
              </Dialog.Close>
            }
          />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
