import type { ReactNode } from "react";
import { ActionButton } from "@/components/account/action-button";
import { EmptyState } from "@/components/ui/empty-state";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import type { ApiKeyView } from "@/lib/auth/accounts";

/** API keys with when they were made and last used, each revocable after a confirmation; with `owner`, a column naming whose key it is. */
export function ApiKeysTable({
  keys,
  caption,
  empty,
  owner,
  testId,
}: {
  keys: ApiKeyView[];
  caption: string;
  empty: string;
  owner?: (key: ApiKeyView) => { label: ReactNode; email: string };
  testId?: string;
}) {
  if (keys.length === 0) return <EmptyState title={empty} />;
  return (
    <DataTable
      caption={caption}
      testId={testId}
      columns={["Name", ...(owner ? ["Owner"] : []), "Starts with", "Created", "Last used", "Action"]}
    >
      {keys.map((k) => {
        const whose = owner?.(k);
        return (
          <tr key={k.id}>
            <RowHead>{k.name}</RowHead>
            {whose ? <Td>{whose.label}</Td> : null}
            <Td>
              <code>{k.start}…</code>
            </Td>
            <Td>
              <Time iso={k.createdAt} />
            </Td>
            <Td>{k.lastUsedAt ? <Time iso={k.lastUsedAt} /> : "never"}</Td>
            <Td>
              <ActionButton
                url={`/api/v1/api-keys/${encodeURIComponent(k.id)}`}
                method="DELETE"
                label="Revoke"
                done={`Key "${k.name}" revoked`}
                confirm={{
                  title: `Revoke the key "${k.name}"?`,
                  description: `Scripts using it${whose ? ` (as ${whose.email})` : ""} stop working at once. This cannot be undone.`,
                  confirmLabel: "Revoke key",
                }}
              />
            </Td>
          </tr>
        );
      })}
    </DataTable>
  );
}
