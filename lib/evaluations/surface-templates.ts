// Surfaces from a tool's arguments: a policy entry's `reads` and `writes` templates (`fs:{path}`)
// name the state a call touches, `{name}` standing for the call's top-level argument `name`. Pure:
// parsed when a policy is saved (effect-policy-schema.ts refuses a bad one), rendered when a run's rows are made
// (ingest/rows.ts) and when the run page says what each call touched.

/** A template as literal text and the arguments it names, in order. */
export type TemplatePart = { text: string } | { argument: string };

/** A surface's length limit (the run record's `surface`): a longer rendering touches nothing, as no index could hold it. */
export const SURFACE_MAX = 500;

/**
 * A template's parts, or why it is refused: `{` opens an argument's name and `}` closes it; braces
 * must pair without nesting, and a name must not be blank. There is no escape: a surface name holds no brace.
 */
export function parseSurfaceTemplate(template: string): { parts: TemplatePart[] } | { problem: string } {
  const parts: TemplatePart[] = [];
  let text = "";
  let open = -1;
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === "{") {
      if (open !== -1) return { problem: `the { at position ${i + 1} opens a name inside the one opened at position ${open + 1}` };
      if (text) parts.push({ text });
      text = "";
      open = i;
    } else if (c === "}") {
      if (open === -1) return { problem: `the } at position ${i + 1} closes no {` };
      if (text.trim() === "") return { problem: `the {} at position ${open + 1} names no argument` };
      parts.push({ argument: text });
      text = "";
      open = -1;
    } else text += c;
  }
  if (open !== -1) return { problem: `the { at position ${open + 1} is never closed` };
  if (text) parts.push({ text });
  return { parts };
}

/** The surface a call touches by a template, or why none: the argument it needs is absent or no scalar, or the name is too long. */
export type RenderedSurface =
  { surface: string } | { reason: "absent" | "not_scalar"; argument: string } | { reason: "too_long"; length: number };

/**
 * The surface a call's arguments make of a template. A string argument is put in as it is, a number
 * or boolean as its JSON text; an absent argument, or one that is null, an object or an array, makes
 * no surface: a surface is named by a scalar, and an object's text would depend on its key order.
 */
export function renderSurfaceTemplate(
  parts: readonly TemplatePart[],
  args: Readonly<Record<string, unknown>> | undefined,
): RenderedSurface {
  let surface = "";
  for (const part of parts) {
    if ("text" in part) {
      surface += part.text;
      continue;
    }
    const value = args && Object.hasOwn(args, part.argument) ? args[part.argument] : undefined;
    if (value === undefined) return { reason: "absent", argument: part.argument };
    if (typeof value === "string") surface += value;
    else if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") surface += JSON.stringify(value);
    else return { reason: "not_scalar", argument: part.argument };
  }
  if (surface.length > SURFACE_MAX) return { reason: "too_long", length: surface.length };
  return { surface };
}

/** A template's parts; the policy's schema refused every template this could not parse. */
export function templateParts(template: string): TemplatePart[] {
  const parsed = parseSurfaceTemplate(template);
  if ("problem" in parsed) throw new Error(`surface template ${JSON.stringify(template)}: ${parsed.problem}`);
  return parsed.parts;
}

/** What a call touches by one of its tool's templates: a read or a write, the template, and the surface its arguments make (or why none). */
export interface CallSurface {
  op: "read" | "write";
  template: string;
  rendered: RenderedSurface;
}

/** What a call touched by a template, or why nothing, in the run page's words. */
export function callSurfaceText(tool: string, { op, template, rendered }: CallSurface): string {
  const field = op === "read" ? "reads" : "writes";
  if ("surface" in rendered) return `${field} ${rendered.surface} (${tool}'s template ${template})`;
  if (rendered.reason === "too_long")
    return `${tool}'s ${field} template ${template} makes a name of ${rendered.length} characters from this call; a surface holds at most ${SURFACE_MAX}`;
  return rendered.reason === "absent"
    ? `${tool}'s ${field} template ${template} needs argument ${rendered.argument}; this call has none`
    : `${tool}'s ${field} template ${template} needs argument ${rendered.argument} as text, a number or true/false; this call's is not`;
}
