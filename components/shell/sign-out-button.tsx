"use client";

import { LogOut } from "lucide-react";
import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";

/** Ends the session (Better Auth's sign-out route, called directly: no auth client on every page). */
export function SignOutButton() {
  const router = useRouter();
  return (
    <Button
      variant="ghost"
      size="sm"
      onClick={async () => {
        await fetch("/api/auth/sign-out", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        router.replace("/login");
        router.refresh();
      }}
    >
      <LogOut aria-hidden="true" />
      Sign out
    </Button>
  );
}
