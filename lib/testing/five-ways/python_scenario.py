"""The five-way test's scenario recorded through the Python client (clients/python), as a harness would.

Reads {"origin", "apiKey", "evaluation", "runs"} (lib/testing/five-ways/scenario.ts's runs) on stdin and
records each run live, every event at the client's own clock: resets first, each call's request and
what it answered (a return is the harness's word; a task's completion read by its handle is evidence),
then the score (or no score), then any evidence that came after scoring. Prints one JSON line per run:
what the score answered. Run with PYTHONPATH=clients/python.
"""

import json
import sys
import time

from boundary_lab import Client

# Events at the client's clock, a few milliseconds apart so that no two share a time.
STEP_SECONDS = 0.005


def step() -> None:
    time.sleep(STEP_SECONDS)


def record_run(client: Client, evaluation: str, run: dict) -> dict:
    late = []
    with client.live_run(evaluation, run["externalId"], run["taskId"]) as live:
        for surface in run.get("verifiedResets", []):
            live.reset(surface, True, evidence="read back empty")
            step()
        for index, call in enumerate(run["calls"]):
            effect_id = f"py-{index}"
            handle = None if call["answer"] == "returns" else f"py-task-{run['externalId']}-{index}"
            live.effect(effect_id, call["tool"], handle=handle, callId=str(index), arguments=call["arguments"])
            step()
            if handle is None:
                live.status(effect_id, "completed")
            else:
                live.status(effect_id, "pending")
            step()
            if call["answer"] == "settles_before_scoring":
                live.status(effect_id, "completed", evidence=f"{handle} read completed by its handle", source="python harness")
                step()
            elif call["answer"] == "settles_after_scoring":
                late.append((effect_id, handle))
        end = run["end"]
        if "unscoredReason" in end:
            answer = live.close_unscored(end["unscoredReason"])
        else:
            answer = live.score(end["endpointLabel"], terminal_label=end.get("terminalLabel"))
        for effect_id, handle in late:
            step()
            live.status(effect_id, "completed", evidence=f"{handle} read completed by its handle", source="python harness")
    return answer


def main() -> None:
    given = json.load(sys.stdin)
    client = Client(given["origin"], given["apiKey"])
    for run in given["runs"]:
        print(json.dumps({"externalId": run["externalId"], "answer": record_run(client, given["evaluation"], run)}), flush=True)


if __name__ == "__main__":
    main()
