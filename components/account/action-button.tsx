"use client";

import { useRouter } from "next/navigation";
import { useState, type ReactNode } from "react";
import { callApi } from "@/components/ui/call-api";
import { Button, type ButtonVariant } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { useToast } from "@/components/ui/toast";

/**
 * A button that calls one API route and refreshes the page's server-rendered lists, after a
 * confirmation dialog when `confirm` says what will happen; the outcome is a toast.
 */
export function ActionButton({
  url,
  method,
  body,
  label,
  confirm,
  done,
  variant = "secondary",
  icon,
}: {
  url: string;
  method: "POST" | "PUT" | "PATCH" | "DELETE";
  body?: unknown;
  label: string;
  confirm?: { title: string; description: string; confirmLabel?: string };
  done: string;
  variant?: ButtonVariant;
  icon?: ReactNode;
}) {
  const router = useRouter();
  const notify = useToast();
  const [busy, setBusy] = useState(false);
  async function act() {
    setBusy(true);
    const result = await callApi(url, method, body);
    setBusy(false);
    if (!result.ok) return notify({ title: `${label}: not done`, description: result.message, tone: "danger" });
    notify({ title: done });
    router.refresh();
  }
  const button = (
    <Button size="sm" variant={variant} disabled={busy} onClick={confirm ? undefined : act}>
      {icon}
      {label}
    </Button>
  );
  return confirm ? (
    <ConfirmDialog
      trigger={button}
      title={confirm.title}
      description={confirm.description}
      confirmLabel={confirm.confirmLabel ?? label}
      onConfirm={act}
    />
  ) : (
    button
  );
}
