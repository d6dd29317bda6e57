import { RowHead, Td } from "@/components/ui/table";

/** An effect's first three cells in a run's effects table: its id, its tool, its surface and handle. */
export function EffectIdentityCells({
  effect,
}: {
  effect: { effectId: string; tool: string; surface?: string | null; handle?: string | null };
}) {
  return (
    <>
      <RowHead>
        <code>{effect.effectId}</code>
      </RowHead>
      <Td>
        <code>{effect.tool}</code>
      </Td>
      <Td className="[overflow-wrap:anywhere]">
        {effect.surface ? <code>{effect.surface}</code> : "no surface"}, {effect.handle ? <code>{effect.handle}</code> : "no handle"}
      </Td>
    </>
  );
}
