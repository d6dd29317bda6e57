import { Label, Select } from "@/components/ui/field";
import { TimeOption } from "@/components/ui/time";

/** One filter of a GET form: a labelled select whose first choice, "any", submits an empty value. */
export function FilterSelect({
  name,
  label,
  value,
  options,
}: {
  name: string;
  label: string;
  value: string | number | undefined;
  /** `at`: an instant the option's text ends with, in the reader's time (TimeOption). */
  options: readonly { value: string | number; label: string; at?: string }[];
}) {
  const id = `filter-${name}`;
  return (
    <div className="space-y-1">
      <Label htmlFor={id}>{label}</Label>
      <Select id={id} name={name} defaultValue={value === undefined ? "" : String(value)}>
        <option value="">any</option>
        {options.map((option) =>
          option.at ? (
            <TimeOption key={option.value} value={String(option.value)} label={option.label} iso={option.at} />
          ) : (
            <option key={option.value} value={String(option.value)}>
              {option.label}
            </option>
          ),
        )}
      </Select>
    </div>
  );
}

/** Options whose value is also their label. */
export const plainOptions = (values: readonly (string | number)[]) => values.map((value) => ({ value, label: String(value) }));
