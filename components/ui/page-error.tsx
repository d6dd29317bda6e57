"use client";

import { RotateCcw } from "lucide-react";
import { Alert } from "./alert";
import { Button } from "./button";

/** A page's error state: what failed (never why: the server log has that) and a retry. */
export function PageError({ message, retry }: { message: string; retry: () => void }) {
  return (
    <Alert tone="danger" role="alert" title={message}>
      <p>It may be a passing problem with the database; trying again usually works.</p>
      <Button size="sm" onClick={() => retry()} className="mt-2">
        <RotateCcw aria-hidden="true" />
        Try again
      </Button>
    </Alert>
  );
}
