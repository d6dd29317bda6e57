import Link from "next/link";
import { requirePagePermission } from "@/lib/auth/guard";
import { can } from "@/lib/auth/permissions";
import { getDb } from "@/lib/db/client";
import { describeGrid } from "@/lib/replay/display";
import { ratio } from "@/lib/replay/format";
import { listExperiments } from "@/lib/experiments/list-experiments";

export const dynamic = "force-dynamic";

const LIMIT = 50;

/** An ISO timestamp that may wrap between date and time on a phone, never inside either. */
function IsoTime({ iso }: { iso: string }) {
  const [date, time] = iso.split("T");
  return (
    <time dateTime={iso}>
      <span className="nowrap">{date}</span>T<wbr />
      <span className="nowrap">{time}</span>
    </time>
  );
}

export default async function ExperimentsPage() {
  const principal = await requirePagePermission("results:read", "/");
  const { experiments } = await listExperiments(getDb(), { limit: LIMIT });

  return (
    <>
      <h1>Experiments</h1>
      {can(principal.role, "experiment:run") ? (
        <p>
          <Link href="/experiments/new">Start a new experiment</Link>
        </p>
      ) : null}
      {experiments.length === 0 ? (
        <div className="empty">
          <p>No experiment is stored yet.</p>
          <p>
            {can(principal.role, "experiment:run") ? <>Start one above, or run</> : <>An editor can start one here, or run</>} the paper&apos;s replay with{" "}
            <code>npm run replay</code> against this database; the experiment appears here once it is stored.
          </p>
        </div>
      ) : (
        <>
          <p className="muted">
            The newest {experiments.length === LIMIT ? `${LIMIT} ` : ""}experiments first. Disagreements count finality trials of every policy whose endpoint label
            differs from the terminal label; exposures count separation pairs of every condition where A&apos;s write changed the value scored in B.
          </p>
          <div className="table-scroll">
            <table>
              <caption>Stored experiments ({experiments.length})</caption>
              <thead>
                <tr>
                  <th scope="col">Created (UTC)</th>
                  <th scope="col">State</th>
                  <th scope="col">Grid</th>
                  <th scope="col">Runs stored / expected</th>
                  <th scope="col">Disagreements / finality trials</th>
                  <th scope="col">Exposures / separation pairs</th>
                </tr>
              </thead>
              <tbody>
                {experiments.map((e) => {
                  const created = e.createdAt.toISOString();
                  return (
                    <tr key={e.id}>
                      <th scope="row">
                        <Link href={`/experiments/${e.id}`} aria-label={`Experiment created ${created}`}>
                          <IsoTime iso={created} />
                        </Link>
                      </th>
                      <td>{e.state}</td>
                      <td>{e.grid ? describeGrid(e.grid) : <span className="muted">config unreadable</span>}</td>
                      <td className="num">{e.totalRuns === null ? e.storedRuns : ratio(e.storedRuns, e.totalRuns)}</td>
                      <td className="num">{ratio(e.disagreements, e.finalityTrials)}</td>
                      <td className="num">{ratio(e.exposures, e.pairs)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}
