"use client";

import { Check, Copy } from "lucide-react";
import { useState } from "react";
import { Button } from "./button";

/** Copies a text to the clipboard and says so ("Copied") for a moment. */
export function CopyButton({ text, label = "Copy", testId }: { text: string; label?: string; testId?: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <>
      <Button
        size="sm"
        data-testid={testId}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setCopied(true);
          } catch {
            setCopied(false);
          }
          setTimeout(() => setCopied(null), 2500);
        }}
      >
        {copied ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
        {copied ? "Copied" : label}
      </Button>
      <span role="status" className="sr-only">
        {copied === true ? "Copied to the clipboard" : copied === false ? "Could not copy: select the text and copy it yourself" : ""}
      </span>
    </>
  );
}
