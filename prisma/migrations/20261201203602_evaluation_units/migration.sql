-- CreateTable
CREATE TABLE "evaluation_units" (
    "evaluation_id" UUID NOT NULL,
    "unit" BIGINT NOT NULL,
    "runs" INTEGER NOT NULL,

    CONSTRAINT "evaluation_units_pkey" PRIMARY KEY ("evaluation_id","unit")
);

-- CreateIndex
CREATE INDEX "evaluation_units_evaluation_id_runs_idx" ON "evaluation_units"("evaluation_id", "runs" DESC);

-- AddForeignKey
ALTER TABLE "evaluation_units" ADD CONSTRAINT "evaluation_units_evaluation_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

