"""Where grades run: a local process pool (the default) or a Ray cluster.

Both take a picklable function and its argument tuples and yield (index, result) as results come
in, so the caller stores each verdict the moment it exists. The arguments carry everything the
function needs (the grade's settings, its runner and sandbox among them): a worker sets nothing up
on its own.

A call may name a *home* (a task's directory): on a cluster, the calls of one home go to the node
where the first of them ran, since that node's cache holds what it made (the task's baseline, its
warm build trees), and a grade elsewhere would build them all again. Ray is told softly: a home
node that is gone or full for long leaves the call to any node. One machine has one cache, so the
local pool has nothing to route.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Protocol


class Executor(Protocol):
    name: str

    def run(
        self, fn: Callable[..., Any], calls: list[tuple], homes: list[str] | None = None
    ) -> Iterator[tuple[int, Any]]: ...

    def close(self) -> None: ...


def _call(fn: Callable[..., Any], args: tuple) -> Any:
    return fn(*args)


def _call_on_node(fn: Callable[..., Any], args: tuple) -> tuple[str, Any]:
    """The call's result, and the Ray node it ran on."""
    import ray

    return ray.get_runtime_context().get_node_id(), fn(*args)


class LocalExecutor:
    name = "local"

    def __init__(self, workers: int = 0) -> None:
        self.workers = workers or os.cpu_count() or 1

    def run(
        self, fn: Callable[..., Any], calls: list[tuple], homes: list[str] | None = None
    ) -> Iterator[tuple[int, Any]]:
        if not calls:
            return
        with ProcessPoolExecutor(max_workers=min(self.workers, len(calls))) as pool:
            futures = {pool.submit(_call, fn, args): i for i, args in enumerate(calls)}
            for future in as_completed(futures):
                yield futures[future], future.result()

    def close(self) -> None:
        return None


class RayExecutor:
    """Ray (an existing engine, not a home-made one). `address=None` starts a local instance;
    a cluster needs patchwitness installed on its nodes (or a runtime_env that installs it)."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int = 0) -> None:
        import ray

        self.ray = ray
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {
                "ignore_reinit_error": True,
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": "ERROR",
            }
            if address:
                kwargs["address"] = address
            elif workers:
                kwargs["num_cpus"] = workers
            ray.init(**kwargs)
        self._remote = ray.remote(_call_on_node)
        self.homes: dict[str, str] = {}  # home -> the node its first call ran on

    def run(
        self, fn: Callable[..., Any], calls: list[tuple], homes: list[str] | None = None
    ) -> Iterator[tuple[int, Any]]:
        homes = homes or [""] * len(calls)
        pending = {
            self._submit(fn, args, home): i
            for i, (args, home) in enumerate(zip(calls, homes, strict=True))
        }
        while pending:
            done, _ = self.ray.wait(list(pending), num_returns=1)
            for ref in done:
                index = pending.pop(ref)
                node, result = self.ray.get(ref)
                if homes[index]:
                    self.homes.setdefault(homes[index], node)
                yield index, result

    def _submit(self, fn: Callable[..., Any], args: tuple, home: str):
        node = self.homes.get(home) if home else None
        if node is None:
            return self._remote.remote(fn, args)
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        where = NodeAffinitySchedulingStrategy(node_id=node, soft=True)
        return self._remote.options(scheduling_strategy=where).remote(fn, args)

    def close(self) -> None:
        self.ray.shutdown()


def make_executor(kind: str, *, workers: int = 0, address: str | None = None) -> Executor:
    if kind == "local":
        return LocalExecutor(workers)
    if kind == "ray":
        try:
            return RayExecutor(address, workers)
        except ImportError:
            raise ValueError(
                "the ray executor needs Ray: pip install 'patchwitness[ray]'"
            ) from None
    raise ValueError(f"unknown executor {kind!r} (local or ray)")
