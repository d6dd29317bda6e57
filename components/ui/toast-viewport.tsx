"use client";

import { X } from "lucide-react";
import { Toast } from "radix-ui";
import { cn } from "./cn";

export interface ToastMessage {
  id: number;
  title: string;
  description?: string;
  tone: "success" | "danger" | "info";
}

/** The toasts on screen (radix Toast: announced politely to screen readers, dismissable, F8 to reach). */
export default function ToastViewport({ messages, dismiss }: { messages: ToastMessage[]; dismiss: (id: number) => void }) {
  return (
    <Toast.Provider swipeDirection="right" duration={6000} label="Notification">
      {messages.map((m) => (
        <Toast.Root
          key={m.id}
          data-testid="toast"
          type={m.tone === "danger" ? "foreground" : "background"}
          onOpenChange={(open) => !open && dismiss(m.id)}
          className={cn(
            "flex items-start gap-3 rounded-lg border bg-card p-3 pr-2 text-sm text-foreground shadow-lg",
            m.tone === "success" && "border-success/50",
            m.tone === "danger" && "border-danger/50",
            m.tone === "info" && "border-info/50",
          )}
        >
          <div className="min-w-0 flex-1">
            <Toast.Title className="font-semibold">{m.title}</Toast.Title>
            {m.description ? <Toast.Description className="text-muted-foreground">{m.description}</Toast.Description> : null}
          </div>
          <Toast.Close aria-label="Dismiss" className="rounded p-1 text-muted-foreground hover:bg-muted">
            <X aria-hidden="true" className="size-4" />
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport className="fixed right-4 bottom-4 z-50 flex w-[min(92vw,22rem)] flex-col gap-2 outline-none" />
    </Toast.Provider>
  );
}
