-- The OTLP receiver's first request of a trace kept whole on its live run (events and spans, one array each)
ALTER TABLE "live_runs" ADD COLUMN "first_events" TEXT, ADD COLUMN "first_spans" TEXT;
