import { Ban, CircleCheck } from "lucide-react";
import type { Metadata } from "next";
import { ActionButton } from "@/components/account/action-button";
import { ApiKeysTable } from "@/components/account/api-keys-table";
import { NewUserForm, ResetPasswordButton, RoleSelect } from "@/components/account/user-admin";
import { ShareLinksTable } from "@/components/share/share-links-table";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader, Section } from "@/components/ui/page-header";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { listAuditLog } from "@/lib/audit-log/audit-log";
import { listAccounts, listApiKeys } from "@/lib/auth/accounts";
import { requirePagePermission } from "@/lib/auth/guard";
import { MIN_PASSWORD_LENGTH } from "@/lib/auth/account-schemas";
import { getDb } from "@/lib/db/web-process-db";
import { listShareLinks, shareLinksDisabled } from "@/lib/share/share-links";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Admin" };

const AUDIT_LOG_SHOWN = 50;

/** An entry's details in words: the counts that went with the act. */
function auditDetails(details: Record<string, unknown>): string {
  const parts = [];
  if (typeof details.runs === "number") parts.push(`${details.runs.toLocaleString("en-US")} runs deleted`);
  if (typeof details.openLiveRuns === "number" && details.openLiveRuns > 0) parts.push(`${details.openLiveRuns} open live runs`);
  return parts.join(", ");
}

export default async function AdminPage() {
  const principal = await requirePagePermission("users:admin", "/admin");
  const db = getDb();
  const [users, keys, links, disabled, audit] = await Promise.all([
    listAccounts(db),
    listApiKeys(db),
    listShareLinks(db, {}),
    shareLinksDisabled(db),
    listAuditLog(db, { limit: AUDIT_LOG_SHOWN }),
  ]);
  return (
    <>
      <PageHeader
        title="Admin"
        description="Accounts and their roles, every API key, every share link on this instance, and the audit log of what cannot be undone."
      />

      <Section
        id="users"
        title="Users"
        description="Deactivating signs a user out and refuses their API keys at once; reactivating lets them sign in again with their password."
      >
        <DataTable
          caption={`Accounts (${users.length})`}
          testId="users"
          columns={["Email", "Name", "Role", "Status", "Created", "Actions"]}
        >
          {users.map((u) => {
            const active = u.active;
            const self = u.id === principal.userId;
            return (
              <tr key={u.id}>
                <RowHead>{u.email}</RowHead>
                <Td>{u.name}</Td>
                <Td>
                  <RoleSelect userId={u.id} role={u.role} label={`Role of ${u.email}`} />
                </Td>
                <Td>
                  <Badge tone={active ? "success" : "warning"} data-testid="user-status">
                    {active ? "active" : "deactivated"}
                  </Badge>
                </Td>
                <Td>
                  <Time iso={u.createdAt} />
                </Td>
                <Td>
                  <div className="flex flex-wrap gap-2">
                    {self ? null : active ? (
                      <ActionButton
                        url={`/api/v1/users/${encodeURIComponent(u.id)}/deactivate`}
                        method="POST"
                        label="Deactivate"
                        icon={<Ban aria-hidden="true" />}
                        done={`${u.email} deactivated`}
                        confirm={{
                          title: `Deactivate ${u.email}?`,
                          description:
                            "They are signed out at once and their API keys stop working; their data stays. You can reactivate them later.",
                          confirmLabel: "Deactivate",
                        }}
                      />
                    ) : (
                      <ActionButton
                        url={`/api/v1/users/${encodeURIComponent(u.id)}/reactivate`}
                        method="POST"
                        label="Reactivate"
                        icon={<CircleCheck aria-hidden="true" />}
                        done={`${u.email} reactivated`}
                      />
                    )}
                    <ResetPasswordButton userId={u.id} email={u.email} minLength={MIN_PASSWORD_LENGTH} />
                  </div>
                </Td>
              </tr>
            );
          })}
        </DataTable>
        <h3 className="pt-4 text-base font-semibold">New account</h3>
        <NewUserForm minLength={MIN_PASSWORD_LENGTH} />
      </Section>

      <Section
        id="api-keys"
        title="API keys"
        description="Every key on this instance, with its owner and its last use. Revoking refuses the key's next use."
      >
        <ApiKeysTable
          keys={keys}
          caption={`Every API key (${keys.length})`}
          empty="No API key on this instance"
          testId="all-api-keys"
          owner={(k) => ({
            email: k.owner.email,
            label: (
              <>
                {k.owner.email}
                {k.owner.active ? null : (
                  <Badge tone="warning" className="ml-2">
                    deactivated
                  </Badge>
                )}
              </>
            ),
          })}
        />
      </Section>

      <Section id="share-links" title="Share links on this instance">
        <Alert tone={disabled ? "warning" : "success"} role="status">
          <p data-testid="kill-switch-state">
            {disabled ? "Every share link is disabled: none opens until they are enabled again." : "Share links are enabled."}
          </p>
        </Alert>
        <ActionButton
          url="/api/v1/settings/share-links"
          method="PUT"
          body={{ disabled: !disabled }}
          label={disabled ? "Enable share links again" : "Disable every share link (kill switch)"}
          variant={disabled ? "primary" : "danger"}
          done={disabled ? "Share links enabled" : "Every share link disabled"}
          confirm={
            disabled
              ? undefined
              : {
                  title: "Disable every share link on this instance?",
                  description: "No link opens until you enable them again; links are not revoked.",
                  confirmLabel: "Disable every link",
                }
          }
        />
        <ShareLinksTable links={links} showCreator />
      </Section>

      <Section
        id="audit-log"
        title="Audit log"
        description={`What was done that cannot be undone, newest first (the latest ${AUDIT_LOG_SHOWN}; every entry through GET /api/v1/admin/audit-log).`}
      >
        {audit.entries.length === 0 ? (
          <EmptyState title="Nothing has been deleted on this instance." />
        ) : (
          <DataTable
            caption={`Audit log (${audit.entries.length}${audit.nextCursor ? "+" : ""})`}
            testId="audit-log"
            columns={["When", "Who", "Action", "What", "Details"]}
          >
            {audit.entries.map((entry) => (
              <tr key={entry.id}>
                <Td>
                  <Time iso={entry.at} />
                </Td>
                <Td>{entry.actorEmail}</Td>
                <Td>
                  <code>{entry.action}</code>
                </Td>
                <RowHead>
                  {entry.resourceType} {typeof entry.details.name === "string" ? entry.details.name : ""}{" "}
                  <span className="font-mono text-xs text-muted-foreground">{entry.resourceId}</span>
                </RowHead>
                <Td>{auditDetails(entry.details)}</Td>
              </tr>
            ))}
          </DataTable>
        )}
      </Section>
    </>
  );
}
