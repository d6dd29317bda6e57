"use client";

import { Dialog as DialogPrimitive } from "radix-ui";
import type { ReactNode } from "react";
import { Button } from "./button";
import { cn } from "./cn";

/**
 * A modal dialog (radix Dialog: focus moves in and stays until it closes; Escape closes it) with its
 * title and description; the trigger and the body are the caller's.
 */
export function Dialog({
  open,
  onOpenChange,
  trigger,
  title,
  description,
  children,
  width = "36rem",
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  trigger: ReactNode;
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  width?: string;
}) {
  return (
    <DialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      <DialogPrimitive.Trigger asChild>{trigger}</DialogPrimitive.Trigger>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-black/50" />
        <DialogPrimitive.Content
          className="fixed top-1/2 left-1/2 z-50 max-h-[90vh] -translate-x-1/2 -translate-y-1/2 space-y-4 overflow-auto rounded-lg border border-border bg-card p-5 text-foreground shadow-lg"
          style={{ width: `min(94vw, ${width})` }}
        >
          <DialogPrimitive.Title className="text-base font-semibold">{title}</DialogPrimitive.Title>
          {description ? (
            <DialogPrimitive.Description className="text-sm text-muted-foreground">{description}</DialogPrimitive.Description>
          ) : null}
          {children}
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}

/** A dialog form's buttons: one that closes without acting, and the submit button (busy while it works). */
export function DialogActions({
  submit,
  busy,
  busyLabel,
  className,
}: {
  submit: string;
  busy: boolean;
  busyLabel: string;
  className?: string;
}) {
  return (
    <div className={cn("flex justify-end gap-2", className)}>
      <DialogPrimitive.Close asChild>
        <Button>Cancel</Button>
      </DialogPrimitive.Close>
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? busyLabel : submit}
      </Button>
    </div>
  );
}

/** A button that closes the dialog it is in. */
export function DialogClose({ children }: { children: ReactNode }) {
  return (
    <DialogPrimitive.Close asChild>
      <Button>{children}</Button>
    </DialogPrimitive.Close>
  );
}
