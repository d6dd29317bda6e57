"""Boundary Lab's Python client: standard library only.

    from boundary_lab import Client

    client = Client("http://localhost:3000", api_key)  # or Client(): BOUNDARY_LAB_URL, BOUNDARY_LAB_API_KEY
    evaluation = client.create_evaluation("bank-bench", effect_policy={"tools": {"send_money": "async_handle"}})
    with client.live_run(evaluation, "run-1", "transfer") as run:
        run.effect("tx-1", "send_money", surface="acct:alice", handle="task-41")
        run.status("tx-1", "pending")
        run.score("success")
"""

from .client import BoundaryLabError, Client, EventsRefused, LiveRun

__all__ = ["BoundaryLabError", "Client", "EventsRefused", "LiveRun"]
__version__ = "0.1.0"
