"""Shared fixtures: the current edition and one verifier per test session."""

from __future__ import annotations

import pytest
from limits import TEST_TIMEOUT_MS
from rule603._internal import smt
from rule603._internal.catalogue import builtin_properties, load_edition
from rule603._internal.verify import MINIMISE_PROBE_RLIMIT, Options, Verifier


@pytest.fixture(scope="session", autouse=True)
def own_check_cache(tmp_path_factory):
    """The tests' compiled checks go to a folder of their own (and every command they run inherits it), never to
    the user's cache: a test run neither reads what an older checkout left there nor leaves anything.  No verdict
    is kept from one test for another (``RULE603_VERDICTS=off``): tests/test_verdict_cache.py turns it on."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RULE603_CACHE_DIR", str(tmp_path_factory.mktemp("check-cache")))
        patch.setenv("RULE603_VERDICTS", "off")
        yield


@pytest.fixture(scope="session")
def edition():
    return load_edition("current")


@pytest.fixture(scope="session")
def catalogue():
    return builtin_properties()


@pytest.fixture(scope="session")
def verifier(edition):
    """One incremental encoding at bound 6, shared: checks reuse what the solver learned.  Counterexamples are
    shrunk with z3's resource limit per probe, as ``rule603 verify`` shrinks them, not a wall clock: a loaded
    machine would otherwise keep a larger one."""
    limits = smt.SolverLimits(TEST_TIMEOUT_MS, probe_rlimit=MINIMISE_PROBE_RLIMIT)
    return Verifier(edition, edition.model.universe(), Options(bound=6, limits=limits))
