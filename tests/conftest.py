"""Shared fixtures: the current edition and one verifier per test session."""

from __future__ import annotations

import pytest
from limits import TEST_TIMEOUT_MS
from rule603._internal import smt
from rule603._internal.catalogue import builtin_properties, load_edition
from rule603._internal.verify import Options, Verifier


@pytest.fixture(scope="session")
def edition():
    return load_edition("current")


@pytest.fixture(scope="session")
def catalogue():
    return builtin_properties()


@pytest.fixture(scope="session")
def verifier(edition):
    """One incremental encoding at bound 6, shared: checks reuse what the solver learned."""
    return Verifier(edition, edition.model.universe(), Options(bound=6, limits=smt.SolverLimits(TEST_TIMEOUT_MS)))
