import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import { cn } from "./cn";
import { FieldError } from "./field-error";

export const controlClass = cn(
  "block w-full rounded-md border border-input bg-card px-3 py-1.5 text-sm text-foreground shadow-xs",
  "placeholder:text-muted-foreground disabled:opacity-60",
  "aria-[invalid=true]:border-danger aria-[invalid=true]:ring-1 aria-[invalid=true]:ring-danger",
);

export function Input({ className, ...props }: InputHTMLAttributes<HTMLInputElement>) {
  return <input className={cn(controlClass, "h-9", className)} {...props} />;
}

export function Textarea({ className, ...props }: TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return <textarea className={cn(controlClass, "min-h-20", className)} {...props} />;
}

export function Select({ className, ...props }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select className={cn(controlClass, "h-9 pr-8", className)} {...props} />;
}

export function Label({ className, ...props }: React.LabelHTMLAttributes<HTMLLabelElement>) {
  return <label className={cn("block text-sm font-medium", className)} {...props} />;
}

/** The ids a control points at with aria-describedby: its hint and its error, each only when shown. */
export function describedBy(
  id: string,
  { hint, error, counter }: { hint?: unknown; error?: unknown; counter?: unknown },
): string | undefined {
  return (
    [hint ? `${id}-hint` : null, counter ? `${id}-counter` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined
  );
}

/**
 * A labelled control with its hint and its error on separate lines (never run together), and an
 * optional character counter. The control itself is the child: give it `id`, and
 * `aria-describedby={describedBy(id, …)}` and `aria-invalid` as the Field's props say.
 */
export function Field({
  id,
  label,
  hint,
  error,
  counter,
  children,
  className,
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  counter?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div className={cn("space-y-1.5", className)}>
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint || counter ? (
        <div className="flex items-start justify-between gap-3 text-xs text-muted-foreground">
          {hint ? <p id={`${id}-hint`}>{hint}</p> : <span />}
          {counter ? (
            <p id={`${id}-counter`} className="shrink-0 tabular-nums">
              {counter}
            </p>
          ) : null}
        </div>
      ) : null}
      {error ? <FieldError id={id} error={error} /> : null}
    </div>
  );
}

/** "123 / 4,000 characters", turning red past the limit. */
export function CharacterCounter({ length, max }: { length: number; max: number }) {
  return (
    <span className={length > max ? "font-medium text-danger" : undefined}>
      {length.toLocaleString("en-US")} / {max.toLocaleString("en-US")} characters
    </span>
  );
}

/** A group of checkboxes or radios with its legend, hint and error. */
export function Fieldset({
  legend,
  hint,
  error,
  id,
  children,
  className,
  ...props
}: {
  legend: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  id: string;
  children: ReactNode;
  className?: string;
} & React.FieldsetHTMLAttributes<HTMLFieldSetElement>) {
  return (
    <fieldset className={cn("space-y-2", className)} aria-describedby={describedBy(id, { hint, error })} {...props}>
      <legend className="mb-1 text-sm font-medium">{legend}</legend>
      {hint ? (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      ) : null}
      {children}
      {error ? <FieldError id={id} error={error} /> : null}
    </fieldset>
  );
}

export function CheckboxLabel({ children, className, ...props }: InputHTMLAttributes<HTMLInputElement> & { children: ReactNode }) {
  return (
    <label className={cn("flex items-center gap-2 text-sm", className)}>
      <input className="size-4 accent-[var(--primary)]" {...props} />
      {children}
    </label>
  );
}
