"use client";

import dynamic from "next/dynamic";
import { createContext, useCallback, useContext, useState, type ReactNode } from "react";
import type { ToastMessage } from "./toast-viewport";

type Notify = (message: Omit<ToastMessage, "id" | "tone"> & { tone?: ToastMessage["tone"] }) => void;

const ToastContext = createContext<Notify>(() => {});

// Radix Toast (the viewport, its live region and swipe handling) is fetched with the first toast:
// every page can notify, none pays for it in its first load.
const ToastViewport = dynamic(() => import("./toast-viewport"), { ssr: false });

/** Short news about an action just taken ("Link revoked"); errors stay beside the control as well. */
export function useToast(): Notify {
  return useContext(ToastContext);
}

let nextId = 1;

/** Holds the page's toasts. */
export function Toaster({ children }: { children: ReactNode }) {
  const [messages, setMessages] = useState<ToastMessage[]>([]);
  const notify = useCallback<Notify>((m) => setMessages((all) => [...all, { tone: "success", ...m, id: nextId++ }]), []);
  const dismiss = useCallback((id: number) => setMessages((all) => all.filter((x) => x.id !== id)), []);
  return (
    <ToastContext.Provider value={notify}>
      {children}
      {messages.length > 0 ? <ToastViewport messages={messages} dismiss={dismiss} /> : null}
    </ToastContext.Provider>
  );
}
