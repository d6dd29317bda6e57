import type { ButtonHTMLAttributes } from "react";
import { cn } from "./cn";

export type ButtonVariant = "primary" | "secondary" | "ghost" | "danger" | "link";
export type ButtonSize = "sm" | "md";

const VARIANTS: Record<ButtonVariant, string> = {
  primary: "bg-primary text-primary-foreground hover:bg-primary-hover border border-transparent",
  secondary: "bg-card text-foreground border border-input hover:bg-muted",
  ghost: "bg-transparent text-foreground border border-transparent hover:bg-muted",
  danger: "bg-danger text-white border border-transparent hover:opacity-90 dark:text-black",
  link: "bg-transparent text-link underline underline-offset-2 border border-transparent px-0 h-auto hover:opacity-80",
};
const SIZES: Record<ButtonSize, string> = { sm: "h-8 px-2.5 text-sm gap-1.5", md: "h-9 px-3.5 text-sm gap-2" };

/** The classes of a button, for a link that should look like one. */
export function buttonClass({
  variant = "secondary",
  size = "md",
  className,
}: { variant?: ButtonVariant; size?: ButtonSize; className?: string } = {}): string {
  return cn(
    "inline-flex items-center justify-center rounded-md font-medium whitespace-nowrap no-underline transition-colors cursor-pointer",
    "disabled:cursor-not-allowed disabled:opacity-60 [&_svg]:size-4 [&_svg]:shrink-0",
    SIZES[size],
    VARIANTS[variant],
    className,
  );
}

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: ButtonSize;
}

/** A button (type="button" unless told otherwise, so that none submits a form by accident). */
export function Button({ variant, size, className, type = "button", ...props }: ButtonProps) {
  return <button type={type} className={buttonClass({ variant, size, className })} {...props} />;
}
