import Link from "next/link";
import type { ShareLinkView } from "@/lib/share/share-links";
import { ActionButton } from "./account-forms";

/** Share links with their status, use count and last use; active ones can be revoked at once. */
export function ShareLinksTable({ links, showCreator }: { links: ShareLinkView[]; showCreator: boolean }) {
  if (links.length === 0) return <p className="muted">No share link yet.</p>;
  return (
    <div className="table-scroll">
      <table data-testid="share-links">
        <caption>Share links, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Resource</th>
            {showCreator ? <th scope="col">Created by</th> : null}
            <th scope="col">Mode</th>
            <th scope="col">Status</th>
            <th scope="col">Expires (UTC)</th>
            <th scope="col">Uses</th>
            <th scope="col">Last used (UTC)</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {links.map((l) => (
            <tr key={l.id}>
              <th scope="row">
                {l.resourceType === "experiment" ? <Link href={`/experiments/${l.resourceId}`}>experiment {l.resourceId?.slice(0, 8)}</Link> : `${l.resourceType} ${l.resourceId?.slice(0, 8) ?? ""}`}
                {l.note ? <div className="muted">{l.note}</div> : null}
              </th>
              {showCreator ? <td>{l.createdBy.email}</td> : null}
              <td>{l.mode}</td>
              <td className={l.status === "active" ? "pass" : "muted"}>{l.status}</td>
              <td>{l.expiresAt ?? "never"}</td>
              <td className="num">{l.useCount}</td>
              <td>{l.lastUsedAt ?? "never"}</td>
              <td>{l.status === "active" ? <ActionButton url={`/api/v1/share-links/${l.id}/revoke`} method="POST" label="Revoke" /> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
