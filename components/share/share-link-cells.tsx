import { Badge } from "@/components/ui/badge";
import { Td } from "@/components/ui/table";
import { Time } from "@/components/ui/time";

const STATUS_TONE = { active: "success", expired: "neutral", revoked: "warning" } as const;

/** A share link's mode, status, expiry, uses and last use: the same cells in every list of links. */
export function ShareLinkCells({
  link,
}: {
  link: { mode: string; status: keyof typeof STATUS_TONE; expiresAt: string | null; uses: number; lastUsedAt: string | null };
}) {
  return (
    <>
      <Td>{link.mode}</Td>
      <Td>
        <Badge tone={STATUS_TONE[link.status]}>{link.status}</Badge>
      </Td>
      <Td>{link.expiresAt ? <Time iso={link.expiresAt} /> : "never"}</Td>
      <Td numeric>{link.uses}</Td>
      <Td>{link.lastUsedAt ? <Time iso={link.lastUsedAt} /> : "never"}</Td>
    </>
  );
}
