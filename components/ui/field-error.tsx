"use client";

import { useEffect, useRef, useState } from "react";

/**
 * A field's error, gone as soon as the field is edited: the message described the value that was
 * sent, not the one being typed. The next submit of its form shows it again if the form still
 * finds it (a new message shows at once). Listens on its field's wrapper, where the control's
 * input and change events bubble, so every form that shows errors through Field or Fieldset gets it.
 */
export function FieldError({ id, error }: { id: string; error: string }) {
  const anchor = useRef<HTMLSpanElement>(null);
  const [edited, setEdited] = useState(false);
  // A different message is news, whatever was typed before it.
  const [shownFor, setShownFor] = useState(error);
  if (shownFor !== error) {
    setShownFor(error);
    setEdited(false);
  }
  useEffect(() => {
    const wrapper = anchor.current?.parentElement;
    const form = anchor.current?.closest("form");
    if (!wrapper) return;
    const control = document.getElementById(id);
    const onEdit = (event: Event) => {
      if (event.target === anchor.current) return;
      setEdited(true);
      // The control's red outline goes with the message; the form's next render or submit sets it again.
      if (control?.getAttribute("aria-invalid") === "true") control.setAttribute("aria-invalid", "false");
    };
    const onSubmit = () => {
      setEdited(false);
      if (control?.getAttribute("aria-invalid") === "false") control.setAttribute("aria-invalid", "true");
    };
    wrapper.addEventListener("input", onEdit);
    wrapper.addEventListener("change", onEdit);
    form?.addEventListener("submit", onSubmit);
    return () => {
      wrapper.removeEventListener("input", onEdit);
      wrapper.removeEventListener("change", onEdit);
      form?.removeEventListener("submit", onSubmit);
    };
  }, [id]);
  return (
    <>
      <span ref={anchor} hidden />
      {edited ? null : (
        <p id={`${id}-error`} role="alert" className="text-sm font-medium text-danger" data-testid="field-error">
          {error}
        </p>
      )}
    </>
  );
}
