import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import type { ShareLinkView } from "@/lib/share/share-links";
import { ActionButton } from "../account/action-button";
import { ShareLinkCells } from "./share-link-cells";

/** Share links with their status, use count and last use; active ones can be revoked at once. */
export function ShareLinksTable({ links, showCreator }: { links: ShareLinkView[]; showCreator: boolean }) {
  if (links.length === 0) return <EmptyState title="No share link yet" />;
  return (
    <DataTable
      caption="Share links, newest first"
      testId="share-links"
      columns={["Resource", ...(showCreator ? ["Created by"] : []), "Mode", "Status", "Expires", "Uses", "Last used", "Action"]}
      numericColumns={[showCreator ? 5 : 4]}
    >
      {links.map((l) => (
        <tr key={l.id}>
          <RowHead>
            {l.resourceType === "experiment" ? (
              <Link href={`/experiments/${l.resourceId}`}>experiment {l.resourceId?.slice(0, 8)}</Link>
            ) : l.resourceType === "run" ? (
              <Link href={`/runs/${l.resourceId}`}>run {l.resourceId?.slice(0, 8)}</Link>
            ) : l.resourceType === "evaluation" ? (
              <Link href={`/evaluations/${l.resourceId}`}>evaluation {l.resourceId?.slice(0, 8)}</Link>
            ) : (
              <Link href="/protocols">protocol matrix</Link>
            )}
            {l.note ? <p className="text-xs font-normal text-muted-foreground">{l.note}</p> : null}
          </RowHead>
          {showCreator ? <Td>{l.createdBy.email}</Td> : null}
          <ShareLinkCells link={l} />
          <Td>
            {l.status === "active" ? (
              <ActionButton
                url={`/api/v1/share-links/${l.id}/revoke`}
                method="POST"
                label="Revoke"
                done="Link revoked"
                confirm={{
                  title: "Revoke this link?",
                  description: 'Anyone holding it sees "Link revoked" from their next view on. This cannot be undone.',
                  confirmLabel: "Revoke link",
                }}
              />
            ) : null}
          </Td>
        </tr>
      ))}
    </DataTable>
  );
}
