"""The client: one HTTP call per method, JSON in and out, retried where re-sending is safe.

Every write this client makes is idempotent on the server (runs by their externalId and content,
live-run events by their eventId, a live run's open and score by its externalId), so connection
errors and 5xx answers are retried with exponential backoff; 4xx answers raise BoundaryLabError
at once, with the field the server named.
"""

from __future__ import annotations

import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime, timezone
from types import TracebackType
from typing import Any, Dict, Iterable, List, Mapping, Optional, Type

#: The server takes at most this many runs in one request.
RUNS_PER_BATCH = 1_000
#: And at most this many live-run events.
EVENTS_PER_BATCH = 5_000


class BoundaryLabError(Exception):
    """An answer that was not 2xx: its HTTP status and the API's error code, message and field."""

    def __init__(self, status: int, code: str, message: str, field: Optional[str] = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.field = field


def _now() -> str:
    """The current time as the API's times are written: ISO-8601 in UTC with milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Client:
    """A Boundary Lab instance, reached with an API key (create one with `npm run apikey:create`)."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        retries: int = 5,
        backoff: float = 0.5,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    # -- transport -----------------------------------------------------------------------------

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        """One call, retried on connection errors and 5xx up to `retries` times with backoff."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"authorization": f"Bearer {self.api_key}", "accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        attempt = 0
        while True:
            request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    text = response.read().decode("utf-8")
                    return json.loads(text) if text else None
            except urllib.error.HTTPError as error:
                if error.code < 500 or attempt >= self.retries:
                    raise self._api_error(error) from None
            except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError):
                if attempt >= self.retries:
                    raise
            attempt += 1
            time.sleep(self.backoff * (2 ** (attempt - 1)) * (0.5 + random.random()))

    @staticmethod
    def _api_error(error: urllib.error.HTTPError) -> BoundaryLabError:
        try:
            detail = json.loads(error.read().decode("utf-8"))["error"]
            return BoundaryLabError(error.code, str(detail["code"]), str(detail["message"]), detail.get("field"))
        except (ValueError, KeyError, TypeError):
            return BoundaryLabError(error.code, "http_error", str(error.reason))

    @staticmethod
    def _evaluation_path(evaluation_id: str) -> str:
        return "/api/v1/evaluations/" + urllib.parse.quote(evaluation_id, safe="")

    # -- evaluations ---------------------------------------------------------------------------

    def create_evaluation(
        self,
        name: str,
        effect_policy: Optional[Mapping[str, Any]] = None,
        harness: Optional[str] = None,
        **fields: Any,
    ) -> str:
        """Creates an evaluation and answers its id. `effect_policy` is `{"tools": {NAME: CLASS}}`, an entry
        also `{"class": CLASS, "reads": "fs:{path}", "writes": ...}` (surfaces from a call's arguments);
        other fields of the API's body (`description`, `benchmark`, `liveRunTimeoutSeconds`, ...) pass through."""
        body: Dict[str, Any] = {"name": name, **fields}
        if effect_policy is not None:
            body["effectPolicy"] = effect_policy
        if harness is not None:
            body["harness"] = harness
        return str(self._request("POST", "/api/v1/evaluations", body)["id"])

    def ingest_runs(self, evaluation_id: str, runs: Iterable[Mapping[str, Any]]) -> List[Dict[str, Any]]:
        """Ingests run records in batches of 1,000 and answers one result per run, in order:
        `{"externalId", "status": "created" | "unchanged" | "updated" | "error", "error"?}`.
        A bad run is refused alone (its result names the field); re-sending is safe."""
        results: List[Dict[str, Any]] = []
        batch: List[Mapping[str, Any]] = []
        path = self._evaluation_path(evaluation_id) + "/runs"
        for run in runs:
            batch.append(run)
            if len(batch) == RUNS_PER_BATCH:
                results.extend(self._request("POST", path, {"runs": batch})["results"])
                batch = []
        if batch:
            results.extend(self._request("POST", path, {"runs": batch})["results"])
        return results

    def summary(self, evaluation_id: str) -> Dict[str, Any]:
        """The evaluation's figures, every rate as `{"successes", "n"}` (GET …/summary)."""
        return dict(self._request("GET", self._evaluation_path(evaluation_id) + "/summary"))

    def live_run(
        self,
        evaluation_id: str,
        external_id: str,
        task_id: str,
        *,
        attempt: Optional[int] = None,
        started_at: Optional[str] = None,
        batch_size: int = 1,
    ) -> "LiveRun":
        """A run recorded as it happens; use it as a context manager (`with client.live_run(...) as run:`).
        Events are sent as they are recorded (`batch_size` 1), or `batch_size` at a time."""
        return LiveRun(self, evaluation_id, external_id, task_id, attempt=attempt, started_at=started_at, batch_size=batch_size)


class LiveRun:
    """One live run: opened on entering the block, its events sent as they happen, scored with `score()`.

    Leaving the block without a score records the run as unscored, with the exception's type as the
    reason when one was raised (never as a failure); the exception is not swallowed."""

    def __init__(
        self,
        client: Client,
        evaluation_id: str,
        external_id: str,
        task_id: str,
        *,
        attempt: Optional[int] = None,
        started_at: Optional[str] = None,
        batch_size: int = 1,
    ) -> None:
        self.client = client
        self.evaluation_id = evaluation_id
        self.external_id = external_id
        self.task_id = task_id
        self.attempt = attempt
        self.started_at = started_at
        self.batch_size = max(1, min(batch_size, EVENTS_PER_BATCH))
        self.result: Optional[Dict[str, Any]] = None
        self._pending: List[Dict[str, Any]] = []
        self._path = client._evaluation_path(evaluation_id) + "/live-runs"
        self._run_path = self._path + "/" + urllib.parse.quote(external_id, safe="")

    def __enter__(self) -> "LiveRun":
        self.open()
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        if self.result is None:
            self.close_unscored(exc_type.__name__ if exc_type is not None else "left the live run without a score")
        else:
            self.flush()

    def open(self) -> Dict[str, Any]:
        """Opens the run (again, safely, if a first answer was lost)."""
        body: Dict[str, Any] = {"externalId": self.external_id, "taskId": self.task_id, "startedAt": self.started_at or _now()}
        if self.attempt is not None:
            body["attempt"] = self.attempt
        self.started_at = body["startedAt"]
        return dict(self.client._request("POST", self._path, body))

    # -- events --------------------------------------------------------------------------------

    def _event(self, event: Dict[str, Any]) -> None:
        self._pending.append({"eventId": str(uuid.uuid4()), "at": _now(), **event})
        if len(self._pending) >= self.batch_size:
            self.flush()

    def effect(self, effect_id: str, tool: str, surface: Optional[str] = None, handle: Optional[str] = None, **fields: Any) -> None:
        """A tool call the agent made (requested now); `surface` counts as a write to it, `handle` is how to check it later."""
        event: Dict[str, Any] = {"type": "effect_requested", "effectId": effect_id, "tool": tool, **fields}
        if surface is not None:
            event["surface"] = surface
        if handle is not None:
            event["handle"] = handle
        self._event(event)

    def status(self, effect_id: str, status: str, evidence: Any = None, source: Optional[str] = None) -> None:
        """What became of an effect: pending, completed, failed, cancelled or unknown.

        Without `evidence` the status is the harness's word (what the tool returned): it makes an effect
        terminal only for a `sync_confirmed` tool. With `evidence` (what a check by the effect's handle
        read, and `source`, who read it) it is a resolution, for any class."""
        event: Dict[str, Any] = {"type": "effect_status", "effectId": effect_id, "status": status}
        if evidence is not None:
            event["evidence"] = evidence
        if source is not None:
            event["source"] = source
        self._event(event)

    def touch(self, surface: str, op: str) -> None:
        """The run read (`"read"`) or wrote (`"write"`) a shared surface."""
        self._event({"type": "touch", "surface": surface, "op": op})

    def reset(self, surface: str, verified: bool, evidence: Any = None) -> None:
        """The surface was reset; `verified` when it was read back afterwards."""
        event: Dict[str, Any] = {"type": "reset", "surface": surface, "verified": verified}
        if evidence is not None:
            event["evidence"] = evidence
        self._event(event)

    def flush(self) -> Dict[str, Any]:
        """Sends the events not sent yet; raises BoundaryLabError if the server refused any (naming its field)."""
        answer: Dict[str, Any] = {"accepted": 0, "errors": []}
        while self._pending:
            batch = self._pending[:EVENTS_PER_BATCH]
            answer = dict(self.client._request("POST", self._run_path + "/events", {"events": batch}))
            del self._pending[: len(batch)]
            if answer.get("errors"):
                first = answer["errors"][0]
                raise BoundaryLabError(200, str(first["code"]), str(first["message"]), first.get("field"))
        return answer

    # -- the end -------------------------------------------------------------------------------

    def score(
        self,
        endpoint_label: str,
        score: Optional[float] = None,
        *,
        terminal_label: Optional[str] = None,
        at: Optional[str] = None,
    ) -> Dict[str, Any]:
        """Scores the run now (or `at`) with `"success"` or `"failure"`; answers `{"finality", "reason"?, "effectId"?}`."""
        self.flush()
        body: Dict[str, Any] = {"endpointLabel": endpoint_label, "at": at or _now()}
        if score is not None:
            body["score"] = score
        if terminal_label is not None:
            body["terminalLabel"] = terminal_label
        self.result = dict(self.client._request("POST", self._run_path + "/score", body))
        return self.result

    def close_unscored(self, reason: str) -> Dict[str, Any]:
        """Closes the run without a score: it is stored unscored with `reason`, in no rate's population."""
        try:
            self.flush()
        finally:
            self.result = dict(self.client._request("POST", self._run_path + "/score", {"unscoredReason": reason[:1000]}))
        return self.result
