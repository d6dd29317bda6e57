"use client";

import { FileUp, X } from "lucide-react";
import { useState } from "react";
import { Button } from "./button";
import { cn } from "./cn";
import { describedBy } from "./field";

const ACCEPT = ".json,.eval,.zip,application/json,application/zip";

/** "1.2 MB": a file's size as the list of chosen files shows it. */
function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Log files dropped on the zone or chosen through it (the whole zone is the file input's label, so a
 * click or Enter on it opens the picker), listed with their sizes, each removable before sending.
 * Dropping adds to the files already chosen; a file of the same name and size is not added twice.
 */
export function FileDropZone({ files, onFiles, disabled }: { files: File[]; onFiles: (files: File[]) => void; disabled: boolean }) {
  const [over, setOver] = useState(false);
  const add = (more: Iterable<File>) => {
    const known = new Set(files.map((f) => `${f.name}\u0000${f.size}`));
    onFiles([...files, ...[...more].filter((f) => !known.has(`${f.name}\u0000${f.size}`))]);
  };
  return (
    <div className="space-y-2">
      <label
        htmlFor="import-files"
        data-testid="import-dropzone"
        data-over={over || undefined}
        onDragOver={(e) => {
          e.preventDefault();
          if (!disabled) setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          if (!disabled) add(e.dataTransfer.files);
        }}
        className={cn(
          "flex cursor-pointer flex-col items-center gap-1 rounded-lg border-2 border-dashed border-border bg-card px-4 py-6 text-center text-sm",
          "focus-within:outline-2 focus-within:outline-offset-2 focus-within:outline-ring hover:border-primary",
          over && "border-primary bg-accent",
          disabled && "cursor-not-allowed opacity-60",
        )}
      >
        <FileUp aria-hidden="true" className="size-6 text-muted-foreground" />
        <span className="font-medium">Drop log files here, or click to choose</span>
        <span className="text-xs text-muted-foreground">.json, .eval or .zip; several at once</span>
        <input
          id="import-files"
          type="file"
          multiple
          accept={ACCEPT}
          disabled={disabled}
          className="sr-only"
          onChange={(e) => {
            add(e.target.files ?? []);
            // Cleared so that choosing the same file again after removing it fires a change.
            e.target.value = "";
          }}
          aria-describedby={describedBy("import-files", { hint: true })}
          data-testid="import-files"
        />
      </label>
      {files.length > 0 ? (
        <ul
          className="divide-y divide-border rounded-md border border-border text-sm"
          data-testid="import-chosen"
          aria-label="Files to import"
        >
          {files.map((file, i) => (
            <li key={`${file.name}-${file.size}-${i}`} className="flex items-center justify-between gap-2 px-3 py-1.5">
              <span className="min-w-0 truncate">
                {file.name} <span className="text-muted-foreground">({sizeText(file.size)})</span>
              </span>
              <Button
                size="sm"
                variant="ghost"
                disabled={disabled}
                onClick={() => onFiles(files.filter((_, j) => j !== i))}
                aria-label={`Remove ${file.name}`}
              >
                <X aria-hidden="true" />
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
