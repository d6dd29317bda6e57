/** A form's error, announced to screen readers; nothing when there is none. */
export function FormAlert({ text }: { text: string | null }) {
  return text ? (
    <p className="error" role="alert">
      {text}
    </p>
  ) : null;
}
