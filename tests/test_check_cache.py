"""The user's cache of compiled checks (``checkcache``): a check loaded from it judges as one just compiled,
a damaged entry is compiled again, and the key changes with what a check was compiled from."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from rule603._internal import checkcache, compiled
from rule603._internal.checkcache import CheckStore
from rule603._internal.compiled import CompiledChecker
from test_clauses import CASES, ED

ALL = tuple(e.number for e in ED.encodings)
#: accepted and rejected cases of clauses whose definitions differ in shape (several universes among them)
TRACES = [CASES[n].build(bad).build() for n in sorted(CASES)[::4] for bad in (False, True)]


def _found(checker: CompiledChecker) -> list[list[tuple]]:
    return [[(b.moment, b.clause, b.about, b.reads, b.room) for b in checker.violations(t)] for t in TRACES]


def _no_compiling(monkeypatch) -> None:
    def refuse(*_):
        raise AssertionError("compiled although the cache holds the check")

    monkeypatch.setattr(CompiledChecker, "_build", refuse)
    monkeypatch.setattr(CompiledChecker, "_generic", refuse)


def test_a_check_loaded_from_the_cache_finds_what_one_compiled_finds(tmp_path, monkeypatch):
    expected = _found(CompiledChecker(ED, ALL))
    assert any(expected), "the cases must break something, or the comparison shows little"
    store = CheckStore(tmp_path / "checks")
    assert _found(CompiledChecker(ED, ALL, store=store)) == expected
    assert list(store.folder.iterdir()), "nothing was written to the cache"
    _no_compiling(monkeypatch)
    assert _found(CompiledChecker(ED, ALL, store=store)) == expected


def test_a_damaged_entry_is_compiled_again_and_rewritten(tmp_path, monkeypatch):
    store = CheckStore(tmp_path / "checks")
    expected = _found(CompiledChecker(ED, ALL, store=store))
    entries = sorted(store.folder.iterdir())
    for i, entry in enumerate(entries):  # truncated or empty
        entry.write_bytes(entry.read_bytes()[: len(entry.read_bytes()) // 2] if i % 2 else b"")
    assert _found(CompiledChecker(ED, ALL, store=store)) == expected
    _no_compiling(monkeypatch)  # rewritten: read back without compiling
    assert _found(CompiledChecker(ED, ALL, store=store)) == expected


def test_another_clause_selection_is_another_entry(tmp_path):
    store = CheckStore(tmp_path / "checks")
    CompiledChecker(ED, ALL, store=store).violations(TRACES[1])
    alone = CompiledChecker(ED, ("603.2c",), include_axioms=False)
    for trace in TRACES:
        cached = CompiledChecker(ED, ("603.2c",), include_axioms=False, store=store)
        assert cached.violations(trace) == alone.violations(trace)


def test_the_key_changes_with_the_edition_data(tmp_path, monkeypatch):
    from rule603._internal import editions

    folder = tmp_path / "editions"
    shutil.copytree(editions.editions_folder(), folder)
    monkeypatch.setattr(editions, "editions_folder", lambda: folder)
    before = checkcache.code_fingerprint()
    assert checkcache.code_fingerprint() == before
    (folder / "encodings-2008.toml").write_text((folder / "encodings-2008.toml").read_text() + "\n# changed\n")
    assert checkcache.code_fingerprint() != before


@pytest.mark.parametrize("value", ["", "off"])
def test_the_cache_can_be_turned_off(monkeypatch, value):
    monkeypatch.setenv(checkcache.CACHE_ENV, value)
    assert CheckStore.default() is None


def test_rule603_cache_shows_and_clears(tmp_path):
    env = {"RULE603_CACHE_DIR": str(tmp_path / "cache"), "PATH": ""}
    trace = "examples/traces/board-wipe.json"
    cli = [sys.executable, "-m", "rule603.cli"]
    subprocess.run([*cli, "check", trace], env=env, capture_output=True, check=False)
    shown = subprocess.run([*cli, "cache"], env=env, capture_output=True, text=True, check=True).stdout
    assert shown.startswith(f"{tmp_path / 'cache'}: ")
    assert " 0 compiled checks" not in shown
    cleared = subprocess.run([*cli, "cache", "--clear"], env=env, capture_output=True, text=True, check=True).stdout
    assert cleared.startswith("removed ")
    assert not (tmp_path / "cache" / checkcache.FOLDER).exists()
    again = subprocess.run([*cli, "cache"], env=env, capture_output=True, text=True, check=True).stdout
    assert " 0 compiled checks" in again


def test_the_format_tag_guards_old_entries():
    check = compiled._MomentCheck([], compiled._Reads((), (), ()), None, 0)
    data = bytearray(check.to_bytes())
    assert compiled._MomentCheck.from_bytes(bytes(data)).first == 0
    import marshal

    form, *rest = marshal.loads(bytes(data))
    with pytest.raises(ValueError, match="format"):
        compiled._MomentCheck.from_bytes(marshal.dumps((form + 1, *rest)))


def test_a_cache_folder_that_cannot_be_one_is_one_line_and_only_slows_check(tmp_path, monkeypatch, capsys):
    from rule603.cli import main

    a_file = tmp_path / "a-file"
    a_file.write_text("the user's file\n")
    monkeypatch.setenv(checkcache.CACHE_ENV, str(a_file))
    assert main(["cache"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"rule603: error: ${checkcache.CACHE_ENV} '")
    assert err[0].endswith("a-file': cannot be read (not a folder)")
    assert main(["check", "examples/traces/board-wipe.json"]) == 0
    assert a_file.read_text() == "the user's file\n"
