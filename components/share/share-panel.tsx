"use client";

import { Link2, Share2 } from "lucide-react";
import { useCallback, useEffect, useId, useState } from "react";
import { callApi } from "@/components/ui/call-api";
import { FormAlert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Dialog, DialogActions, DialogClose } from "@/components/ui/dialog";
import { CopyButton } from "@/components/ui/copy-button";
import { EmptyState } from "@/components/ui/empty-state";
import { CharacterCounter, Field, Input, Label, Select, describedBy } from "@/components/ui/field";
import { Skeleton } from "@/components/ui/skeleton";
import { DataTable, RowHead, Td } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { useToast } from "@/components/ui/toast";
import type { ShareResourceType } from "@/lib/share/share-link-schemas";
import { ShareLinkCells } from "./share-link-cells";

type ResourceType = ShareResourceType;

/** A link as GET /api/v1/share-links?resourceType=&resourceId= lists it. */
interface ListedLink {
  id: string;
  mode: "frozen" | "live";
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  uses: number;
  lastUsedAt: string | null;
  status: "active" | "expired" | "revoked";
  note?: string | null;
  createdBy: { email: string };
}

interface Created {
  url: string;
  link: { id: string; expiresAt: string | null; contentHash: string | null; mode: string };
}

const NOTE_MAX = 200;

/**
 * Sharing on a shareable page: the resource's links (status, uses, last use) with revoke in place,
 * and a dialog to make a new one (frozen or live, with an expiry) whose URL is shown once with a
 * copy button.
 */
export function SharePanel({
  resourceType,
  resourceId,
  resourceIds,
}: {
  resourceType: ResourceType;
  resourceId?: string;
  resourceIds?: string[];
}) {
  const what =
    resourceType === "protocol_matrix" ? "protocol matrix" : resourceType === "completion_argument" ? "completion argument" : resourceType;
  const notify = useToast();
  const [links, setLinks] = useState<ListedLink[] | null>(null);
  // A comparison's ids as one string: a new array on each render must not reload the list.
  const idsParam = resourceIds?.join(",");
  const [listError, setListError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const query = new URLSearchParams({
      resourceType,
      ...(resourceId ? { resourceId } : {}),
      ...(idsParam ? { resourceIds: idsParam } : {}),
    });
    const result = await callApi<{ shareLinks: ListedLink[] }>(`/api/v1/share-links?${query}`, "GET");
    if (result.ok) {
      setLinks(result.data.shareLinks);
      setListError(null);
    } else setListError(result.message);
  }, [resourceType, resourceId, idsParam]);
  useEffect(() => void load(), [load]);

  async function revoke(link: ListedLink) {
    const result = await callApi(`/api/v1/share-links/${link.id}/revoke`, "POST");
    if (result.ok) {
      notify({ title: "Link revoked", description: "Its next view says so; nothing else changes." });
      await load();
    } else notify({ title: "The link was not revoked", description: result.message, tone: "danger" });
  }

  return (
    <Panel
      id="sharing"
      className="mt-10"
      title="Share links"
      description={`Read-only links to this ${what} for people without an account. Frozen links show a snapshot with its SHA-256; live ones follow the ${what}.`}
      actions={<NewLinkDialog resourceType={resourceType} resourceId={resourceId} resourceIds={resourceIds} what={what} onCreated={load} />}
    >
      {listError ? (
        <FormAlert text={`The links of this ${what} could not be listed: ${listError}`} />
      ) : links === null ? (
        <div className="space-y-2" role="status" aria-label="Loading share links">
          <Skeleton className="h-8" />
          <Skeleton className="h-8" />
        </div>
      ) : links.length === 0 ? (
        <EmptyState icon={Link2} title={`No share link for this ${what} yet`} />
      ) : (
        <DataTable
          caption={`Share links of this ${what}, newest first`}
          testId="resource-share-links"
          columns={["Created", "Mode", "Status", "Expires", "Uses", "Last used", "Created by", "Action"]}
          numericColumns={[4]}
        >
          {links.map((l) => (
            <tr key={l.id} data-testid="share-link-row">
              <RowHead>
                <Time iso={l.createdAt} />
                {l.note ? <p className="text-xs font-normal text-muted-foreground">{l.note}</p> : null}
              </RowHead>
              <ShareLinkCells link={l} />
              <Td>{l.createdBy.email}</Td>
              <Td>
                {l.status === "active" ? (
                  <ConfirmDialog
                    trigger={
                      <Button size="sm" variant="secondary">
                        Revoke
                      </Button>
                    }
                    title="Revoke this link?"
                    description={`Anyone holding it sees "Link revoked" from their next view on. This cannot be undone; you can make a new link.`}
                    confirmLabel="Revoke link"
                    onConfirm={() => revoke(l)}
                  />
                ) : l.revokedAt ? (
                  <span className="text-xs text-muted-foreground">
                    revoked <Time iso={l.revokedAt} relative={false} />
                  </span>
                ) : null}
              </Td>
            </tr>
          ))}
        </DataTable>
      )}
    </Panel>
  );
}

/** The "Share read-only link…" dialog: choose, create, then the URL once with its copy button. */
function NewLinkDialog({
  resourceType,
  resourceId,
  resourceIds,
  what,
  onCreated,
}: {
  resourceType: ResourceType;
  resourceId?: string;
  resourceIds?: string[];
  what: string;
  onCreated: () => Promise<void>;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [mode, setMode] = useState<"frozen" | "live">("frozen");
  const [expiry, setExpiry] = useState("14");
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<Created | null>(null);

  function reset(next: boolean) {
    setOpen(next);
    if (!next) {
      setCreated(null);
      setError(null);
      setNote("");
    }
  }

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (note.length > NOTE_MAX) return setError(`Note must be at most ${NOTE_MAX} characters (it has ${note.length})`);
    setBusy(true);
    setError(null);
    const result = await callApi<Created>("/api/v1/share-links", "POST", {
      resourceType,
      ...(resourceId ? { resourceId } : {}),
      ...(resourceIds ? { resourceIds } : {}),
      mode,
      expiresInDays: expiry === "never" ? null : Number(expiry),
      ...(note.trim() ? { note: note.trim() } : {}),
    });
    setBusy(false);
    if (!result.ok) return setError(result.message);
    setCreated(result.data);
    await onCreated();
  }

  return (
    <Dialog
      open={open}
      onOpenChange={reset}
      trigger={
        <Button variant="primary" size="sm">
          <Share2 aria-hidden="true" />
          Share read-only link…
        </Button>
      }
      title={`Share this ${what}`}
      description={
        created ? (
          <>
            Anyone with this link can read this {what} only, without an account
            {created.link.expiresAt ? (
              <>
                , until <Time iso={created.link.expiresAt} relative={false} />
              </>
            ) : (
              ", with no expiry"
            )}
            . It is shown once: copy it now.
          </>
        ) : (
          `A read-only link to exactly this ${what}; you can revoke it at any time.`
        )
      }
    >
      {created ? (
        <>
          <div className="space-y-1.5">
            <Label htmlFor={`${id}-url`}>Link</Label>
            <div className="flex gap-2">
              <Input
                id={`${id}-url`}
                data-testid="share-url"
                readOnly
                value={created.url}
                onFocus={(e) => e.currentTarget.select()}
                className="font-mono text-xs"
              />
              <CopyButton text={created.url} label="Copy link" testId="copy-share-url" />
            </div>
          </div>
          {created.link.contentHash ? (
            <p className="text-xs text-muted-foreground [overflow-wrap:anywhere]">
              Frozen snapshot, SHA-256 <code>{created.link.contentHash}</code>
            </p>
          ) : (
            <p className="text-xs text-muted-foreground">Live: the reviewer sees the {what} as it is when they open the link.</p>
          )}
          <div className="flex justify-end">
            <DialogClose>Done</DialogClose>
          </div>
        </>
      ) : (
        <form onSubmit={submit} className="space-y-4">
          <fieldset className="space-y-1.5">
            <legend className="mb-1 text-sm font-medium">What the reviewer sees</legend>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="mode"
                value="frozen"
                checked={mode === "frozen"}
                onChange={() => setMode("frozen")}
                className="accent-[var(--primary)]"
              />{" "}
              A frozen snapshot, taken now (default)
            </label>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="mode"
                value="live"
                checked={mode === "live"}
                onChange={() => setMode("live")}
                className="accent-[var(--primary)]"
              />{" "}
              Live: follows the {what} as it changes
            </label>
          </fieldset>
          <Field id={`${id}-expiry`} label="Expires">
            <Select id={`${id}-expiry`} value={expiry} onChange={(e) => setExpiry(e.target.value)}>
              <option value="1">in 1 day</option>
              <option value="7">in 7 days</option>
              <option value="14">in 14 days</option>
              <option value="30">in 30 days</option>
              <option value="90">in 90 days</option>
              <option value="never">never (until revoked)</option>
            </Select>
          </Field>
          <Field id={`${id}-note`} label="Note for your list (optional)" counter={<CharacterCounter length={note.length} max={NOTE_MAX} />}>
            <Input
              id={`${id}-note`}
              value={note}
              onChange={(e) => setNote(e.target.value)}
              aria-describedby={describedBy(`${id}-note`, { counter: true })}
            />
          </Field>
          <FormAlert text={error} />
          <DialogActions submit="Create link" busyLabel="Creating…" busy={busy} />
        </form>
      )}
    </Dialog>
  );
}
