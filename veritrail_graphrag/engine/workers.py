"""Claims verified in worker processes, for a verifier that calls no model (`--workers N`).

An offline verifier's claim is computation in Python, waiting on nothing: in one process it uses
one core, however many the machine has. Here N worker processes verify the claims, each with the
engine's own traversal, and the parent keeps what one process would: the results, in the order of
the claims, and `on_result` called (the checkpoint appended) as each claim finishes.

How the DAG reaches the workers: they are forked once the DAG is read, so each sees the parent's
DAG, verifier and settings in memory shared copy-on-write; nothing is pickled or read again. The
garbage collector is frozen for the fork (`gc.freeze`), so that a worker's collections do not
write to, and copy, every page of the parent's objects; a worker copies what it touches (the
reference counts of the nodes it reads) and holds its own caches and the one claim it verifies.
Results travel back pickled (the objects one process would hold), one claim at a time.

Work goes out a few claims at a time, in the order of the claims, to whichever worker is free: the
claims of one community report are next to each other and meet the same nodes and batches, which
the verifier caches; a slow report does not keep the other workers idle.

Stopping: the workers ignore Ctrl-C and SIGTERM (a terminal sends Ctrl-C to them too); the
parent, stopped as with one process (`interruption`: its wait for the next result is cancelled),
kills them, and the checkpoint holds every claim that finished. The claims in hand, one per worker,
are verified again on resume, as with one process. Where processes cannot be forked (Windows), `fork_available` is False and callers verify
in one process.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import signal
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING

from veritrail_graphrag import interruption
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.engine.trail import ClaimResult
from veritrail_graphrag.errors import VerifierError
from veritrail_graphrag.models import Claim

if TYPE_CHECKING:
    from veritrail_graphrag.engine.traversal import VeriTrail

CLAIMS_PER_TASK = 4
"""Claims sent to a worker at a time: few, so that the last ones do not wait behind a busy worker."""

_shared: tuple[VeriTrail, DAG, Mapping[str, str]] | None = None
"""(engine, DAG, claim id -> start node), set in the parent just before the workers are forked."""


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _tasks(claims: Sequence[Claim]) -> Iterator[list[Claim]]:
    for at in range(0, len(claims), CLAIMS_PER_TASK):
        yield list(claims[at : at + CLAIMS_PER_TASK])


def _work(channel: Connection, parent: int) -> None:
    """A worker: verifies the claims it is sent, sends each result or failure back, asks for more."""
    for number in interruption.SIGNALS:  # the parent stops the audit, and this process
        signal.signal(number, signal.SIG_IGN)
    assert _shared is not None
    engine, dag, starts = _shared
    # A loop of its own, never `asyncio.run`: once nest_asyncio2 is applied (importing graphrag
    # does), `asyncio.run` runs the current loop, here the fork's copy of the parent's, which shares
    # the parent's epoll and holds the parent's tasks: the worker went on with the parent's audit.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        while os.getppid() == parent and (claims := channel.recv()) is not None:
            for claim in claims:
                try:
                    result = loop.run_until_complete(engine.averify(dag, claim, starts[claim.id]))
                except VerifierError as exc:
                    channel.send(("failed", claim.id, str(exc), exc.node_ids))
                else:
                    channel.send(("result", result))
            channel.send(("ready",))
    except (EOFError, BrokenPipeError):
        return  # the parent is gone or stopped the audit
    except Exception:
        channel.send(("crashed", traceback.format_exc()))


async def verify_in_processes(
    engine: VeriTrail,
    dag: DAG,
    claims: Sequence[Claim],
    starts: Mapping[str, str],
    workers: int,
    on_result: Callable[[ClaimResult], None] | None = None,
    on_error: Callable[[Claim, VerifierError], None] | None = None,
) -> list[ClaimResult]:
    """`VeriTrail.averify_many` for an offline verifier, in `workers` processes; see the module's
    docstring. A worker that fails with a bug ends the audit with its traceback in the message."""
    global _shared
    by_id = {claim.id: claim for claim in claims}
    tasks = _tasks(claims)
    results: dict[str, ClaimResult] = {}
    left = len(claims)
    context = multiprocessing.get_context("fork")
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()
    channels: list[Connection] = []
    processes: list[multiprocessing.process.BaseProcess] = []

    released: set[Connection] = set()

    def send(channel: Connection) -> None:
        """The next claims, or None: the worker is done and may end."""
        task = next(tasks, None)
        if task is None:
            released.add(channel)
        channel.send(task)

    def fail(error: BaseException) -> None:
        if not finished.done():
            finished.set_exception(error)

    def receive(channel: Connection) -> None:
        nonlocal left
        try:
            message = channel.recv()
        except EOFError:
            loop.remove_reader(channel.fileno())
            if channel not in released and not interruption.requested():
                fail(RuntimeError("a worker process ended before its claims were verified"))
            return
        kind = message[0]
        if kind == "ready":
            send(channel)
            return
        if kind == "crashed":
            fail(RuntimeError(f"a worker process failed:\n{message[1]}"))
            return
        left -= 1
        try:
            if kind == "result":
                results[message[1].claim.id] = message[1]
                if on_result is not None:
                    on_result(message[1])
            else:
                error = VerifierError(message[2], message[1], message[3])
                if on_error is None:
                    raise error
                on_error(by_id[message[1]], error)
        except BaseException as exc:  # the checkpoint not writable, a failure without on_error
            fail(exc)
            return
        if not left and not finished.done():
            finished.set_result(None)

    _shared = (engine, dag, starts)
    gc.freeze()
    try:
        for _ in range(min(workers, max(1, len(claims)))):
            mine, theirs = context.Pipe()
            process = context.Process(target=_work, args=(theirs, os.getpid()), daemon=True)
            process.start()
            theirs.close()
            channels.append(mine)
            processes.append(process)
            send(mine)
            loop.add_reader(mine.fileno(), receive, mine)
        if left:
            await finished
    finally:
        _shared = None
        gc.unfreeze()
        for channel in channels:
            loop.remove_reader(channel.fileno())
            channel.close()
        for process in processes:
            if process.is_alive():
                process.kill()  # it holds nothing to clean: its results come here
            process.join()
    return [results[claim.id] for claim in claims if claim.id in results]
