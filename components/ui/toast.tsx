"use client";

import { X } from "lucide-react";
import { Toast } from "radix-ui";
import { createContext, useCallback, useContext, useState, type ReactNode } from "react";
import { cn } from "./cn";

interface ToastMessage {
  id: number;
  title: string;
  description?: string;
  tone: "success" | "danger" | "info";
}

type Notify = (message: Omit<ToastMessage, "id" | "tone"> & { tone?: ToastMessage["tone"] }) => void;

const ToastContext = createContext<Notify>(() => {});

/** Short news about an action just taken ("Link revoked"); errors stay beside the control as well. */
export function useToast(): Notify {
  return useContext(ToastContext);
}

let nextId = 1;

/** Holds the toasts of the page; announced politely to screen readers (radix Toast's live region). */
export function Toaster({ children }: { children: ReactNode }) {
  const [messages, setMessages] = useState<ToastMessage[]>([]);
  const notify = useCallback<Notify>((m) => setMessages((all) => [...all, { tone: "success", ...m, id: nextId++ }]), []);
  return (
    <ToastContext.Provider value={notify}>
      <Toast.Provider swipeDirection="right" duration={6000} label="Notification">
        {children}
        {messages.map((m) => (
          <Toast.Root
            key={m.id}
            data-testid="toast"
            onOpenChange={(open) => !open && setMessages((all) => all.filter((x) => x.id !== m.id))}
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
    </ToastContext.Provider>
  );
}
