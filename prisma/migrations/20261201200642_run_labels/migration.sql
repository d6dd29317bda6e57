-- AlterTable
ALTER TABLE "evaluation_runs" ADD COLUMN     "labels" JSONB;

