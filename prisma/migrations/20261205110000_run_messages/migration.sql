-- The run's conversation as the harness logged it (issue 26, transcripts): one row per message, in order,
-- read a page at a time by position. Copied with a new batch's other detached children before the audit
-- lock, so the run key is checked at commit. Long text is compressed by TOAST.
CREATE TABLE "evaluation_run_messages" (
    "run_id" BIGINT NOT NULL,
    "position" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "tool_calls" JSONB,
    "tool_call_id" TEXT,
    CONSTRAINT "evaluation_run_messages_pkey" PRIMARY KEY ("run_id", "position"),
    CONSTRAINT "evaluation_run_messages_role_check" CHECK ("role" IN ('system', 'user', 'assistant', 'tool'))
);

ALTER TABLE "evaluation_run_messages" ADD CONSTRAINT "evaluation_run_messages_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "evaluation_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED;
