"""The client against a real Boundary Lab instance (BOUNDARY_LAB_URL, BOUNDARY_LAB_API_KEY of an
editor), run by `npm test` (e2e/python-client.spec.ts against the web app, and
app/api/v1/evaluations/[id]/live-runs/python-client.db.test.ts against the route handlers); and its
transport (retries, failures, the environment, background sending) against local servers."""

import http.server
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, List, Tuple
from unittest import mock

from boundary_lab import BoundaryLabError, Client, EventsRefused

POLICY = {"tools": {"bank.send_money": "async_handle", "bank.read": "read_only"}}


def instance(background: bool = False) -> Client:
    """The instance the environment names (BOUNDARY_LAB_URL, BOUNDARY_LAB_API_KEY), which Client reads itself."""
    if not os.environ.get("BOUNDARY_LAB_URL") or not os.environ.get("BOUNDARY_LAB_API_KEY"):
        raise RuntimeError("set BOUNDARY_LAB_URL and BOUNDARY_LAB_API_KEY (an editor's key) to a running instance")
    return Client(retries=2, backoff=0.05, background=background)


def run_record(external_id: str, second: int = 0) -> dict:
    started = f"2026-12-01T10:{second // 60:02d}:{second % 60:02d}.000Z"
    return {"externalId": external_id, "taskId": "t1", "startedAt": started, "scoredAt": started, "endpointLabel": "success"}


class IngestAndSummary(unittest.TestCase):
    def setUp(self) -> None:
        self.client = instance()
        self.evaluation = self.client.create_evaluation(f"python client {uuid.uuid4()}", effect_policy=POLICY, harness="python")

    def test_ingests_in_batches_of_1000_and_resending_is_safe(self) -> None:
        runs = [run_record(f"r{i}", i % 3600) for i in range(1_001)]
        results = self.client.ingest_runs(self.evaluation, runs)
        self.assertEqual(len(results), 1_001)
        self.assertEqual({r["status"] for r in results}, {"created"})
        again = self.client.ingest_runs(self.evaluation, runs)
        self.assertEqual({r["status"] for r in again}, {"unchanged"})
        summary = self.client.summary(self.evaluation)
        self.assertEqual(summary["runs"], 1_001)
        self.assertEqual(summary["reported"], {"successes": 1_001, "n": 1_001})

    def test_a_bad_run_is_refused_alone_with_its_field(self) -> None:
        results = self.client.ingest_runs(self.evaluation, [run_record("good"), {**run_record("bad"), "endpointLabel": "maybe"}])
        self.assertEqual([r["status"] for r in results], ["created", "error"])
        self.assertEqual(results[1]["error"]["field"], "runs.1.endpointLabel")

    def test_an_unknown_evaluation_raises_with_status_and_code(self) -> None:
        with self.assertRaises(BoundaryLabError) as raised:
            self.client.summary(str(uuid.uuid4()))
        self.assertEqual((raised.exception.status, raised.exception.code), (404, "not_found"))


class LiveRuns(unittest.TestCase):
    def setUp(self) -> None:
        self.client = instance()
        self.evaluation = self.client.create_evaluation(f"python live {uuid.uuid4()}", effect_policy=POLICY)

    def test_a_transfer_still_working_at_scoring_is_unresolved_then_resolved_after_scoring(self) -> None:
        with self.client.live_run(self.evaluation, "live-1", "transfer") as run:
            run.touch("acct:alice", "read")
            run.effect("tx-1", "bank.send_money", surface="acct:alice", handle="task-41")
            run.status("tx-1", "pending")
            answer = run.score("success", 1.0)
            self.assertEqual(answer, {"finality": "unresolved", "reason": "pending_at_scoring", "effectId": "tx-1", "tool": "bank.send_money"})
            time.sleep(0.01)
            run.status("tx-1", "completed", evidence={"ledger": 7})
        summary = self.client.summary(self.evaluation)
        self.assertEqual(summary["unresolved"]["byReason"], {"resolved_after_scoring": 1})

    def test_leaving_the_block_on_an_exception_records_the_run_unscored_with_its_type(self) -> None:
        with self.assertRaises(ValueError):
            with self.client.live_run(self.evaluation, "live-2", "transfer") as run:
                run.effect("tx-2", "bank.send_money", handle="task-42")
                raise ValueError("the agent crashed")
        self.assertEqual(run.result, {"finality": "unscored", "reason": "ValueError"})
        summary = self.client.summary(self.evaluation)
        self.assertEqual((summary["runs"], summary["unscored"]), (1, 1))
        self.assertEqual(summary["reported"]["n"], 0)

    def test_two_runs_on_one_account_are_one_unit_unless_a_verified_reset_separates_them(self) -> None:
        for verified, units in ((False, 1), (True, 2)):
            evaluation = self.client.create_evaluation(f"python units {uuid.uuid4()}", effect_policy=POLICY)
            for external_id in ("a", "b"):
                with self.client.live_run(evaluation, external_id, "transfer", batch_size=10) as run:
                    if external_id == "b":
                        run.reset("acct:alice", verified)
                    run.touch("acct:alice", "write")
                    run.score("success")
            self.assertEqual(self.client.summary(evaluation)["units"]["analysisUnits"], units)

    def test_a_refused_event_raises_events_refused_naming_the_event_and_its_field(self) -> None:
        with self.client.live_run(self.evaluation, "live-3", "transfer") as run:
            with self.assertRaises(EventsRefused) as raised:
                run.status("never-requested", "completed")
            refused = raised.exception
            self.assertIsInstance(refused, BoundaryLabError)
            self.assertEqual((refused.status, refused.code, refused.field), (None, "unknown_effect", "events.0.effectId"))
            self.assertEqual([(r["event"]["effectId"], r["code"]) for r in refused.refusals], [("never-requested", "unknown_effect")])
            run.score("failure")


class LiveRunsInTheBackground(unittest.TestCase):
    def setUp(self) -> None:
        self.client = instance(background=True)
        self.addCleanup(self.client.close)
        self.evaluation = self.client.create_evaluation(f"python background {uuid.uuid4()}", effect_policy=POLICY)

    def test_events_sent_in_the_background_are_all_stored_before_the_score(self) -> None:
        with self.client.live_run(self.evaluation, "bg-1", "transfer") as run:
            run.touch("acct:alice", "read")
            for i in range(50):
                run.effect(f"read-{i}", "bank.read")
                run.status(f"read-{i}", "completed")
            run.effect("tx-1", "bank.send_money", surface="acct:alice", handle="task-41")
            run.status("tx-1", "pending")
            answer = run.score("success", 1.0)
            self.assertEqual(answer, {"finality": "unresolved", "reason": "pending_at_scoring", "effectId": "tx-1", "tool": "bank.send_money"})
            time.sleep(0.01)
            run.status("tx-1", "completed", evidence={"ledger": 7})
        summary = self.client.summary(self.evaluation)
        self.assertEqual(summary["unresolved"]["byReason"], {"resolved_after_scoring": 1})

    def test_a_refusal_met_in_the_background_is_raised_by_the_score_which_then_scores_when_sent_again(self) -> None:
        with self.client.live_run(self.evaluation, "bg-2", "transfer") as run:
            run.effect("tx-2", "bank.send_money", handle="task-42")
            run.status("never-requested", "completed")
            run.status("tx-2", "pending")
            with self.assertRaises(EventsRefused) as raised:
                run.score("failure")
            self.assertEqual([(r["event"]["effectId"], r["code"]) for r in raised.exception.refusals], [("never-requested", "unknown_effect")])
            self.assertIsNone(run.result)
            self.assertEqual(run.score("failure")["reason"], "pending_at_scoring")


class Bank:
    """The MCP test bank's two tools (lib/testing/mcp-bank-server.ts), done straight on the delayed-write
    service (DELAYED_WRITE_URL): a balance read, and a transfer acknowledged at once and applied later."""

    def __init__(self, namespace: str) -> None:
        self.url = os.environ.get("DELAYED_WRITE_URL")
        if not self.url:
            raise RuntimeError("set DELAYED_WRITE_URL to the delayed-write service of the instance")
        self.namespace = namespace

    def _call(self, method: str, path: str, body: object = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def balance(self, account: str) -> int:
        query = urllib.parse.urlencode({"namespace": self.namespace, "key": account})
        entry = self._call("GET", f"/v1/values?{query}").get("entry")
        return entry["value"] if entry else 100

    def send_money(self, source: str, target: str, amount: int, delay_ms: int) -> list:
        balances = {source: self.balance(source) - amount, target: self.balance(target) + amount}
        return [
            self._call("POST", "/v1/writes", {"namespace": self.namespace, "key": k, "value": v, "delayMs": delay_ms, "mode": "async"})["operation"]["handle"]
            for k, v in balances.items()
        ]

    def wait(self, handles: list) -> bool:
        return all(self._call("GET", f"/v1/operations/{h}?waitMs=10000")["operation"]["status"] == "completed" for h in handles)


class BankScenario(unittest.TestCase):
    """Issue 23 §4 through this client: the MCP recorder's proof scenario, recorded by hand as a Python
    harness would, gives the same figures (app/api/v1/evaluations/[id]/live-runs/mcp-recorder.db.test.ts)."""

    def run_transfer(self, client: Client, evaluation: str, run_id: str, bank: Bank, expected_balance: int, reset: bool) -> dict:
        with client.live_run(evaluation, run_id, "transfer") as run:
            if reset:
                for account in ("alice", "bob"):
                    run.reset(f"bank://accounts/{account}", True, evidence="balance read back")
            run.effect(f"{run_id}-read", "get_balance")
            self.assertEqual(bank.balance("alice"), expected_balance)
            run.status(f"{run_id}-read", "completed")
            run.touch("bank://accounts/alice", "read")
            handles = bank.send_money("alice", "bob", 5, delay_ms=1500)
            run.effect(f"{run_id}-send", "send_money", handle=handles[0])
            run.status(f"{run_id}-send", "pending")
            scored = run.score("success")
            # After the endpoint, as the recorder does: the transfer followed to its end, its writes recorded then.
            self.assertTrue(bank.wait(handles))
            run.status(f"{run_id}-send", "completed", evidence={"operation": handles[0], "status": "completed"}, source="bank operations API")
            run.touch("bank://accounts/alice", "write")
            run.touch("bank://accounts/bob", "write")
        return scored

    def test_the_recorders_scenario_gives_the_same_figures(self) -> None:
        client = instance()
        for reset, units in ((False, 1), (True, 2)):
            evaluation = client.create_evaluation(
                f"python bank {uuid.uuid4()}", effect_policy={"tools": {"get_balance": "read_only", "send_money": "async_handle"}}
            )
            bank = Bank(f"py-bank-{uuid.uuid4()}")
            first = self.run_transfer(client, evaluation, "A", bank, 100, reset=False)
            self.assertEqual((first["finality"], first["reason"]), ("unresolved", "pending_at_scoring"))
            self.run_transfer(client, evaluation, "B", bank, 95, reset=reset)
            summary = client.summary(evaluation)
            self.assertEqual(summary["unresolved"]["byReason"], {"resolved_after_scoring": 2})
            self.assertEqual((summary["units"]["runRows"], summary["units"]["analysisUnits"]), (2, units))


class FlakyServer(http.server.BaseHTTPRequestHandler):
    """Answers 503 to the first `failures` requests, then a summary."""

    failures = 2
    seen = 0

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        FlakyServer.seen += 1
        status, body = (503, {"error": {"code": "unavailable", "message": "restarting"}}) if FlakyServer.seen <= FlakyServer.failures else (200, {"runs": 3})
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *_: object) -> None:
        pass


class Retries(unittest.TestCase):
    def test_retries_5xx_with_backoff_then_answers(self) -> None:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FlakyServer)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            FlakyServer.seen = 0
            client = Client(f"http://127.0.0.1:{server.server_port}", "key", retries=3, backoff=0.01)
            self.assertEqual(client.summary("e"), {"runs": 3})
            self.assertEqual(FlakyServer.seen, 3)
            FlakyServer.seen = 0
            with self.assertRaises(BoundaryLabError) as raised:
                Client(f"http://127.0.0.1:{server.server_port}", "key", retries=1, backoff=0.01).summary("e")
            self.assertEqual((raised.exception.status, FlakyServer.seen), (503, 2))
        finally:
            server.shutdown()
            server.server_close()

    def test_an_unreachable_instance_raises_boundary_lab_error_with_the_connection_error_as_cause(self) -> None:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FlakyServer)
        port = server.server_port
        server.server_close()
        with self.assertRaises(BoundaryLabError) as raised:
            Client(f"http://127.0.0.1:{port}", "key", retries=2, backoff=0.01).summary("e")
        error = raised.exception
        self.assertEqual((error.status, error.code), (None, "unreachable"))
        self.assertIn("after 3 attempt(s)", error.message)
        self.assertIsInstance(error.__cause__, urllib.error.URLError)
        self.assertIsInstance(error.__cause__.reason, ConnectionRefusedError)


class Recorded(http.server.BaseHTTPRequestHandler):
    """A stand-in instance that answers as the live-run routes do and keeps every request it was sent:
    (method, path, authorization, body). Events requests take `events_delay` seconds; GET answers `get_answer`."""

    requests: List[Tuple[str, str, str, Any]] = []
    events_delay = 0.0
    get_answer = b'{"runs": 3}'

    def _answer(self, payload: bytes, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        Recorded.requests.append(("GET", self.path, self.headers.get("authorization", ""), None))
        self._answer(Recorded.get_answer)

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        Recorded.requests.append(("POST", self.path, self.headers.get("authorization", ""), body))
        if self.path.endswith("/events"):
            time.sleep(Recorded.events_delay)
            self._answer(json.dumps({"accepted": len(body["events"]), "errors": [], "state": "open"}).encode())
        elif self.path.endswith("/score"):
            self._answer(b'{"finality": "final"}')
        else:
            self._answer(b'{"state": "open"}')

    def log_message(self, *_: object) -> None:
        pass


class Transport(unittest.TestCase):
    def setUp(self) -> None:
        Recorded.requests, Recorded.events_delay, Recorded.get_answer = [], 0.0, b'{"runs": 3}'
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorded)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def events_sent(self) -> List[str]:
        return [e["effectId"] for method, path, _, body in Recorded.requests if path.endswith("/events") for e in body["events"]]

    def test_reads_its_instance_and_key_from_the_environment_and_refuses_to_start_without_them(self) -> None:
        with mock.patch.dict(os.environ, {"BOUNDARY_LAB_URL": self.url + "/", "BOUNDARY_LAB_API_KEY": "key-from-env"}):
            self.assertEqual(Client().summary("e"), {"runs": 3})
            self.assertEqual(Client(api_key="key-given").base_url, self.url)
        self.assertEqual([r[2] for r in Recorded.requests], ["Bearer key-from-env"])
        with mock.patch.dict(os.environ, {"BOUNDARY_LAB_URL": "", "BOUNDARY_LAB_API_KEY": ""}):
            for arguments, field in (((), "base_url"), ((self.url,), "api_key"), (("localhost:3000", "key"), "base_url")):
                with self.assertRaises(BoundaryLabError) as raised:
                    Client(*arguments)
                self.assertEqual((raised.exception.status, raised.exception.code, raised.exception.field), (None, "not_configured", field))

    def test_an_answer_that_is_not_json_raises_boundary_lab_error(self) -> None:
        Recorded.get_answer = b"<html>a proxy's page</html>"
        with self.assertRaises(BoundaryLabError) as raised:
            Client(self.url, "key").summary("e")
        self.assertEqual((raised.exception.status, raised.exception.code), (200, "invalid_answer"))
        self.assertIsInstance(raised.exception.__cause__, ValueError)

    def test_the_background_batches_events_in_order_and_sends_them_all_before_the_score(self) -> None:
        Recorded.events_delay = 0.05
        with Client(self.url, "key", background=True) as client:
            started = time.monotonic()
            with client.live_run("e", "r", "t") as run:
                for i in range(200):
                    run.effect(f"call-{i}", "tool")
                recording = time.monotonic() - started
                self.assertEqual(run.score("success"), {"finality": "final"})
        # The agent did not wait for the 50 ms requests, which carried what was recorded meanwhile.
        self.assertLess(recording, 5.0)
        batches = [r for r in Recorded.requests if r[1].endswith("/events")]
        self.assertLess(len(batches), 20)
        self.assertEqual(self.events_sent(), [f"call-{i}" for i in range(200)])
        self.assertTrue(Recorded.requests[-1][1].endswith("/score"))

    def test_the_background_sends_what_is_left_at_interpreter_exit(self) -> None:
        script = textwrap.dedent(
            """
            import sys
            from boundary_lab import Client
            run = Client(sys.argv[1], "key", background=True).live_run("e", "r", "t")
            run.open()
            for i in range(100):
                run.effect(f"call-{i}", "tool")
            """
        )
        Recorded.events_delay = 0.05
        subprocess.run([sys.executable, "-c", script, self.url], check=True, timeout=60)
        self.assertEqual(self.events_sent(), [f"call-{i}" for i in range(100)])

    def test_the_background_keeps_events_it_could_not_send_for_the_next_flush(self) -> None:
        client = Client(self.url, "key", background=True, retries=0)
        self.addCleanup(client.close)
        run = client.live_run("e", "r", "t")
        run.open()
        self.server.shutdown()
        self.server.server_close()
        run.effect("call-0", "tool")
        with self.assertRaises(BoundaryLabError) as raised:
            run.flush()
        self.assertEqual(raised.exception.code, "unreachable")
        restarted = http.server.ThreadingHTTPServer(("127.0.0.1", self.server.server_port), Recorded)
        threading.Thread(target=restarted.serve_forever, daemon=True).start()
        self.addCleanup(restarted.server_close)
        self.addCleanup(restarted.shutdown)
        run.flush()  # sends it, unless the background's own send, waiting for this flush's, just did
        self.assertEqual(self.events_sent(), ["call-0"])


if __name__ == "__main__":
    unittest.main()
