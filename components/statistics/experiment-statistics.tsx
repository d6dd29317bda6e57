"use client";

import dynamic from "next/dynamic";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { callApi } from "@/components/ui/call-api";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Section } from "@/components/ui/page-header";
import { PageLoading } from "@/components/ui/skeleton";
import type { ExperimentStatistics as StatisticsAnswer } from "@/lib/experiments/statistics-schema";
import type { RuleVersion } from "@/lib/statistics/answer-schema";

// The panel's module is fetched beside its answer, after the page has loaded.
const loadPanel = () => import("./statistics-panel").then((m) => m.StatisticsPanel);
const StatisticsPanel = dynamic(loadPanel, { ssr: false, loading: () => <Pending /> });

type Loaded =
  { state: "loading" } | { state: "failed"; message: string } | { state: "absent" } | { state: "loaded"; answer: StatisticsAnswer };

/**
 * An experiment's statistics, fetched from its API once the page is in the browser. Rendered on the
 * server they were over a third of the experiment page (90 KB of its 240 KB: the tables as HTML and
 * again as React's payload); as an answer they are its JSON. `revision` names what the figures depend
 * on (the rule's version, the experiment's state): a page refreshed with a new one fetches again.
 */
export function ExperimentStatistics({
  experimentId,
  revision,
  ruleHistory,
  edits,
}: {
  experimentId: string;
  revision: string;
  ruleHistory: RuleVersion[];
  edits: boolean;
}) {
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  // Only the latest request's answer is shown: one sent before a refresh may come back after the next.
  const latest = useRef(0);
  const load = useCallback(async () => {
    const request = ++latest.current;
    void loadPanel();
    const answer = await callApi<StatisticsAnswer>(`/api/v1/experiments/${experimentId}/statistics`, "GET");
    if (request !== latest.current) return;
    if (answer.ok) setLoaded({ state: "loaded", answer: answer.data });
    else if (answer.status === 404) setLoaded({ state: "absent" });
    else setLoaded({ state: "failed", message: answer.message });
  }, [experimentId]);
  useEffect(() => {
    void load();
  }, [load, revision]);

  if (loaded.state === "absent") return null;
  if (loaded.state === "loaded")
    return (
      <StatisticsPanel
        {...loaded.answer}
        ruleHistory={ruleHistory}
        ruleChange={edits ? { kind: "experiment", id: experimentId } : undefined}
      />
    );
  if (loaded.state === "loading") return <Pending />;
  return (
    <Pending>
      <Alert tone="danger" role="alert" title="The statistics could not be loaded">
        <p>{loaded.message}</p>
        <Button
          size="sm"
          onClick={() => {
            setLoaded({ state: "loading" });
            void load();
          }}
        >
          Try again
        </Button>
      </Alert>
    </Pending>
  );
}

/** The section's heading and anchor before its answer: the contents bar's Statistics link lands here meanwhile. */
function Pending({ children }: { children?: ReactNode }) {
  return (
    <Section title="Statistics" id="statistics" data-testid="statistics-pending">
      {children ?? <PageLoading label="Loading the statistics…" />}
    </Section>
  );
}
