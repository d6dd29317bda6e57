-- CreateTable
CREATE TABLE "evaluation_tool_suggestions" (
    "evaluation_id" UUID NOT NULL,
    "tool" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "suggested_class" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "annotations" JSONB,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "evaluation_tool_suggestions_pkey" PRIMARY KEY ("evaluation_id","tool","source")
);

-- AddForeignKey
ALTER TABLE "evaluation_tool_suggestions" ADD CONSTRAINT "evaluation_tool_suggestions_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written: the four classes (lib/evaluations/schemas.ts EFFECT_CLASSES).
ALTER TABLE "evaluation_tool_suggestions" ADD CONSTRAINT "evaluation_tool_suggestions_class_check" CHECK ("suggested_class" IN ('read_only', 'sync_confirmed', 'async_handle', 'external'));
