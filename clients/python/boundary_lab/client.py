"""The client: one HTTP call per method, JSON in and out, retried where re-sending is safe.

Every write this client makes is idempotent on the server (runs by their externalId and content,
live-run events by their eventId, a live run's open and score by its externalId), so connection
errors and 5xx answers are retried with exponential backoff; 4xx answers raise BoundaryLabError
at once, with the field the server named. Every failure is a BoundaryLabError: no answer at all
(status None, code "unreachable", the connection error as its __cause__) too.
"""

from __future__ import annotations

import atexit
import http.client
import json
import logging
import os
import queue
import random
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import weakref
from datetime import datetime, timezone
from types import TracebackType
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Type

#: The server takes at most this many runs in one request.
RUNS_PER_BATCH = 1_000
#: And at most this many live-run events.
EVENTS_PER_BATCH = 5_000
#: Read when `Client` is given no base URL or no API key.
URL_VARIABLE = "BOUNDARY_LAB_URL"
API_KEY_VARIABLE = "BOUNDARY_LAB_API_KEY"

logger = logging.getLogger("boundary_lab")


class BoundaryLabError(Exception):
    """Every failure of this client. `status` is the HTTP status of an answer that was not 2xx (with the
    API's error code, message and field), or None when there was no such answer: the instance could not
    be reached (code "unreachable", the connection error chained as `__cause__`), the client is not
    configured (code "not_configured"), or events were refused one by one (EventsRefused)."""

    def __init__(self, status: Optional[int], code: str, message: str, field: Optional[str] = None) -> None:
        super().__init__(f"{status} {code}: {message}" if status is not None else f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.field = field


class EventsRefused(BoundaryLabError):
    """The server stored a live run's events but refused some of them, each for its own reason (an effect
    never requested, a time before the run's start, an eventId reused with other content, ...).

    `refusals` lists them in the order they were recorded, each `{"event", "code", "message", "field"}`
    (`event` as sent, with its eventId; `field` names it within the request that carried it, e.g.
    `events.0.effectId`); `code`, `message` and `field` are the first refusal's. A refused event is not
    sent again (it would be refused again); the others were stored. `status` is None: the requests
    themselves were answered 200."""

    def __init__(self, refusals: List[Dict[str, Any]]) -> None:
        first = refusals[0]
        more = f" (and {len(refusals) - 1} more)" if len(refusals) > 1 else ""
        super().__init__(None, str(first["code"]), str(first["message"]) + more, first.get("field"))
        self.refusals = refusals


def _now() -> str:
    """The current time as the API's times are written: ISO-8601 in UTC with milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Client:
    """A Boundary Lab instance, reached with an API key (create one with `npm run apikey:create`).

    `base_url` and `api_key` default to the environment's BOUNDARY_LAB_URL and BOUNDARY_LAB_API_KEY.
    With `background=True` live runs' events are sent by a background thread, batched, while the agent
    goes on (see LiveRun); `close()` (or leaving `with Client(...) as client:`) sends what is left and
    stops it, as the interpreter's exit does."""

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = 30.0,
        retries: int = 5,
        backoff: float = 0.5,
        background: bool = False,
    ) -> None:
        base_url = base_url or os.environ.get(URL_VARIABLE)
        api_key = api_key or os.environ.get(API_KEY_VARIABLE)
        if not base_url:
            raise BoundaryLabError(None, "not_configured", f"no instance: pass base_url or set {URL_VARIABLE}", "base_url")
        if not api_key:
            raise BoundaryLabError(None, "not_configured", f"no API key: pass api_key or set {API_KEY_VARIABLE}", "api_key")
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise BoundaryLabError(None, "not_configured", f"{base_url!r} is not an http(s) URL", "base_url")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self._sender: Optional[_BackgroundSender] = _BackgroundSender() if background else None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], traceback: Optional[TracebackType]) -> None:
        self.close()

    def close(self) -> None:
        """Sends the events still queued for the background (raising the first failure, after trying every
        run) and stops its thread; nothing to do without `background`."""
        if self._sender is not None:
            sender, self._sender = self._sender, None
            sender.close()

    # -- transport -----------------------------------------------------------------------------

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        """One call, retried on connection errors and 5xx up to `retries` times with backoff."""
        url = self.base_url + path
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"authorization": f"Bearer {self.api_key}", "accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        attempt = 0
        while True:
            request = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    status, payload = response.status, response.read()
                break
            except urllib.error.HTTPError as error:
                if error.code < 500 or attempt >= self.retries:
                    raise self._api_error(error) from None
            except (OSError, http.client.HTTPException) as error:
                # URLError (refused, unknown host), timeouts, resets and broken pipes, answers cut short.
                if attempt >= self.retries:
                    reason = error.reason if isinstance(error, urllib.error.URLError) else error
                    raise BoundaryLabError(
                        None, "unreachable", f"{method} {url}: no answer after {attempt + 1} attempt(s): {reason}"
                    ) from error
            attempt += 1
            time.sleep(self.backoff * (2 ** (attempt - 1)) * (0.5 + random.random()))
        try:
            text = payload.decode("utf-8")
            return json.loads(text) if text else None
        except ValueError as error:
            raise BoundaryLabError(status, "invalid_answer", f"{method} {url}: the answer is not JSON: {payload[:200]!r}") from error

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
        Events are sent as they are recorded (`batch_size` 1), or `batch_size` at a time; with the client's
        `background`, by its thread, in batches of what was recorded meanwhile (`batch_size` unused)."""
        return LiveRun(self, evaluation_id, external_id, task_id, attempt=attempt, started_at=started_at, batch_size=batch_size)


class LiveRun:
    """One live run: opened on entering the block, its events sent as they happen, scored with `score()`.

    Leaving the block without a score records the run as unscored, with the exception's type as the
    reason when one was raised (never as a failure); the exception is not swallowed.

    Events the server refuses raise EventsRefused: from the call that sent them (the event's own call
    with `batch_size` 1) or, with the client's `background`, from the next `flush()`: `score()` and
    leaving the block flush first, so a run is never scored with a refusal unseen (catch it and score
    again to score anyway). Events the background could not send (the instance unreachable) stay
    queued: the next flush sends them or raises BoundaryLabError "unreachable"."""

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
        # Recorded, not yet stored; appended by the agent's thread, taken by whichever thread sends.
        self._pending: List[Dict[str, Any]] = []
        # Refusals the background met, raised by the next flush().
        self._refused: List[Dict[str, Any]] = []
        self._queued_for_background = False
        self._lock = threading.Lock()
        # One sender at a time, so that a run's events are sent in the order they were recorded.
        self._send_lock = threading.Lock()
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
        with self._lock:
            self._pending.append({"eventId": str(uuid.uuid4()), "at": _now(), **event})
            waiting = len(self._pending)
        sender = self.client._sender
        if sender is not None:
            sender.wake(self)
        elif waiting >= self.batch_size:
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
        """Sends the events not sent yet and answers `{"accepted": N}`; raises EventsRefused if the server
        refused any (since the last flush, the background's included), BoundaryLabError if it could not be
        reached (the events stay queued)."""
        accepted, refusals = self._send_pending()
        with self._lock:
            refusals, self._refused = self._refused + refusals, []
        if refusals:
            raise EventsRefused(refusals)
        return {"accepted": accepted}

    def _send_pending(self) -> Tuple[int, List[Dict[str, Any]]]:
        """Sends the pending events in batches, oldest first; answers how many were stored and the refusals."""
        accepted = 0
        refusals: List[Dict[str, Any]] = []
        with self._send_lock:
            while True:
                with self._lock:
                    batch = self._pending[:EVENTS_PER_BATCH]
                if not batch:
                    return accepted, refusals
                answer = self.client._request("POST", self._run_path + "/events", {"events": batch})
                with self._lock:
                    del self._pending[: len(batch)]
                accepted += int(answer.get("accepted", 0))
                for error in answer.get("errors") or []:
                    index = error.get("index")
                    event = batch[index] if isinstance(index, int) and 0 <= index < len(batch) else None
                    refusals.append({"event": event, "code": error["code"], "message": error["message"], "field": error.get("field")})

    def _send_in_background(self) -> None:
        """The background thread's send: refusals kept for the next flush(); on a failure the events stay pending."""
        with self._lock:
            self._queued_for_background = False
        try:
            _, refusals = self._send_pending()
        except BoundaryLabError as error:
            logger.warning("live run %s: events not sent yet (%s); the next flush sends them again", self.external_id, error)
            return
        if refusals:
            with self._lock:
                self._refused.extend(refusals)

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


class _BackgroundSender:
    """A client's thread that sends its live runs' events while the agent goes on.

    The agent's thread only queues a run that has events waiting; the thread sends everything the run
    has waiting by then in one request (up to 5,000 events), so events recorded during a request go in
    the next. `close()`, and the interpreter's exit, send every run's remaining events and stop it."""

    def __init__(self) -> None:
        self._queue: "queue.Queue[Optional[LiveRun]]" = queue.Queue()
        self._runs: "weakref.WeakSet[LiveRun]" = weakref.WeakSet()
        self._thread = threading.Thread(target=self._send_forever, name="boundary-lab-events", daemon=True)
        self._thread.start()
        atexit.register(self._close_at_exit)

    def wake(self, run: LiveRun) -> None:
        self._runs.add(run)
        with run._lock:
            if run._queued_for_background:
                return
            run._queued_for_background = True
        self._queue.put(run)

    def _send_forever(self) -> None:
        while True:
            run = self._queue.get()
            if run is None:
                return
            try:
                run._send_in_background()
            except Exception:  # noqa: BLE001 (the thread must outlive any one run's failure)
                logger.exception("live run %s: sending events failed", run.external_id)

    def close(self) -> None:
        """Sends every run's remaining events (raising the first failure once all were tried) and stops the thread."""
        atexit.unregister(self._close_at_exit)
        self._queue.put(None)
        failures: List[BoundaryLabError] = []
        for run in list(self._runs):
            try:
                run.flush()
            except BoundaryLabError as error:
                failures.append(error)
        self._thread.join(timeout=5)
        if failures:
            raise failures[0]

    def _close_at_exit(self) -> None:
        try:
            self.close()
        except BoundaryLabError as error:
            logger.error("at exit, live-run events not stored: %s", error)
