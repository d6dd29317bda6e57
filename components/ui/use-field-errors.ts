"use client";

import { useRef, useState } from "react";

/** A form's errors by field ("form" for the whole), shown beside their fields. */
export type FieldErrorMap = Partial<Record<string, string>>;

/**
 * A form's errors and how they are shown: set them all at once, and move focus to the first field
 * at fault (the element marked `data-field` with its name), so a keyboard or screen-reader user lands on it.
 */
export function useFieldErrors() {
  const formRef = useRef<HTMLFormElement>(null);
  const [errors, setErrors] = useState<FieldErrorMap>({});
  function show(found: FieldErrorMap) {
    setErrors(found);
    const first = Object.keys(found)[0];
    if (first) formRef.current?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus();
  }
  return { formRef, errors, show };
}
