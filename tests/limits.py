"""The wall-clock limit of a solver call in tests that are not about limits.

A test that asks whether something holds must not fail because the machine is slow: a check that runs out of
time answers "unknown", and the test would read it as a wrong answer. On a development machine four times slower
than the one the tests were written on (2026-11-26), checks of a minute there took over a minute here, and an
exhaustive audit test failed on a 60-s limit. The limit stays, as every solver call has one: ten minutes, far
above any check these tests make, so that only a hang stops them.
"""

TEST_TIMEOUT_MS = 600_000
