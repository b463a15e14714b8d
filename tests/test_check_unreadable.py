"""`rule603 check` keeps going: an input that is not a trace is a result of its own.

An engine author streaming ten thousand traces must not lose the other verdicts to one bad
line: each unreadable file or line is reported (file, line, JSON pointer) in the table, the
JSON and the JUnit output, every other trace is still checked, and the exit status (5 when
every trace read conforms, 1 when some breaks a clause) tells the two apart.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rule603._internal import conformance
from rule603.cli import ExitCode, main
from test_check import CLEAN, _trace_json

GOOD = [json.dumps(_trace_json(number, False)) for number in CLEAN]
BROKEN = json.dumps(_trace_json("603.2h", True))  # breaks 603.2h


def _schema_violation() -> str:
    data = _trace_json("603.6d", False)
    data["states"][1]["zone"][0] = "sideboard"
    return json.dumps(data)


def _unknown_edition() -> str:
    data = _trace_json("603.6d", False)
    data["#meta"]["edition"] = "1999"
    return json.dumps(data)


# Each corruption: the line's bytes, and the JSON pointer and start of the message reported.
CORRUPT: dict[str, tuple[bytes, str, str]] = {
    "truncated": (GOOD[0][: len(GOOD[0]) // 2].encode(), "", "not JSON: "),
    "not an object": (b"[1, 2, 3]", "", "a trace is a JSON object with #meta, vars and states"),
    "schema": (_schema_violation().encode(), "/states/1/zone/0", "expected one of ['library', "),
    "edition": (_unknown_edition().encode(), "/#meta/edition", "unknown edition '1999'"),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "", "nested too deeply: arrays or objects"),
    "not UTF-8": (GOOD[1].encode().replace(b'"current"', b'"curr\xffent"', 1), "", "not UTF-8 text (invalid start"),
    "huge number": (b"1" + b"0" * 5000, "", "a number of 5001 digits; numbers here have a few digits at most"),
}


def _stream(path: Path, broken_at: int | None = None) -> tuple[dict[int, str], dict[int, str]]:
    """Write a JSON Lines stream with one corrupt line in every hundred, each of another kind.

    Returns the good lines and the corrupt ones by line number (blank lines, which are
    skipped, are in neither); ``broken_at`` puts a trace that breaks 603.2h on that line.
    """
    lines: list[bytes] = []
    good: dict[int, str] = {}
    bad: dict[int, str] = {}
    for number in range(1, 100 * len(CORRUPT) + 1):
        hundred, place = divmod(number - 1, 100)
        if place == 37 + 7 * hundred:  # one per hundred, not always at the same place
            kind = list(CORRUPT)[hundred]
            lines.append(CORRUPT[kind][0])
            bad[number] = kind
        elif place == 50:
            lines.append(b" \t" if hundred % 2 else b"")  # blank lines are skipped
        else:
            text = BROKEN if number == broken_at else GOOD[number % len(GOOD)]
            lines.append(text.encode())
            good[number] = text
    path.write_bytes(b"\n".join(lines) + b"\n")
    return good, bad


def _check(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _assert_every_corrupt_line_reported(report: dict, name: str, good: dict[int, str], bad: dict[int, str]) -> None:
    assert [t["file"] for t in report["traces"]] == [f"{name}:{n}" for n in good]
    assert [(u["source"], u["line"]) for u in report["unreadable"]] == [(name, n) for n in bad]
    for item, kind in zip(report["unreadable"], bad.values(), strict=True):
        _, pointer, message = CORRUPT[kind]
        assert (item["pointer"], item["message"][: len(message)]) == (pointer, message), kind
    summary = report["summary"]
    assert (summary["traces"], summary["unreadable"]) == (len(good) + len(bad), len(bad))
    assert summary["conforming"] + summary["violating"] + summary["unreadable"] == summary["traces"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_stream_with_a_corrupt_line_in_every_hundred_is_checked_to_the_end(capsys, tmp_path: Path, jobs: str):
    stream = tmp_path / "engine.jsonl"
    good, bad = _stream(stream)
    code, out, err = _check(capsys, str(stream), "--format", "json", "--jobs", jobs)
    report = json.loads(out)
    assert (code, err) == (ExitCode.UNREADABLE, "")
    _assert_every_corrupt_line_reported(report, str(stream), good, bad)
    assert all(t["conforms"] for t in report["traces"])
    assert report["summary"]["conforming"] == len(good) and report["summary"]["jobs"] == int(jobs)


def test_the_table_lists_every_corrupt_line_and_counts_them(capsys, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # short names: the table wraps long ones
    good, bad = _stream(Path("engine.jsonl"))
    code, out, err = _check(capsys, "engine.jsonl")
    assert (code, err) == (ExitCode.UNREADABLE, "")
    rows = [line.split() for line in out.splitlines() if " unreadable " in line]
    assert [(row[0], row[1], row[2]) for row in rows] == [(f"engine.jsonl:{n}", "unreadable", "at") for n in bad]
    assert "at /states/1/zone/0: expected one of" in out and "at /#meta/edition: unknown edition" in out
    total = len(good) + len(bad)
    assert f"\n{total} traces, {len(good)} conform, 0 break a clause, {len(bad)} unreadable; " in out
    assert f"({len(good)} conforming traces not listed" in out


def test_junit_has_an_error_for_every_corrupt_line(capsys, tmp_path: Path):
    stream = tmp_path / "engine.jsonl"
    good, bad = _stream(stream, broken_at=2)
    code, out, _ = _check(capsys, str(stream), "--format", "junit", "--jobs", "2")
    assert code == ExitCode.VIOLATED  # a violation outranks the unreadable lines, which are still listed
    root = ET.fromstring(out)
    suite = root.find("testsuite")
    for element in (root, suite):
        assert {k: element.get(k) for k in ("tests", "failures", "errors")} == {
            "tests": str(len(good) + len(bad)),
            "failures": "1",
            "errors": str(len(bad)),
        }
    cases = suite.findall("testcase")
    assert len(cases) == len(good) + len(bad)
    errored = [(c.get("name"), c.find("error")) for c in cases if c.find("error") is not None]
    assert [name for name, _ in errored] == [f"{stream}:{n}" for n in bad]
    for (_, error), kind in zip(errored, bad.values(), strict=True):
        _, pointer, message = CORRUPT[kind]
        assert error.get("type") == "unreadable"
        assert error.get("message").startswith(f"at {pointer or '/'}: {message}"), kind
    assert [c.get("name") for c in cases if c.find("failure") is not None] == [f"{stream}:2"]
    assert not [c for c in cases if c.find("error") is not None and c.find("failure") is not None]


def test_a_directory_with_one_bad_file_checks_the_others(capsys, tmp_path: Path, monkeypatch):
    folder = tmp_path / "traces"
    folder.mkdir()
    for number, text in zip(CLEAN, GOOD, strict=True):
        (folder / f"{number}.json").write_text(text)
    (folder / "broken.json").write_text(BROKEN)
    (folder / "corrupt.json").write_text('{"#meta": ')
    (folder / "locked.json").write_text(GOOD[0])
    (folder / "empty.jsonl").write_text("\n")
    opened = Path.open

    def refuse_locked(self: Path, *args, **kwargs):  # chmod 000 would not stop root
        if self.name == "locked.json":
            raise PermissionError(13, "Permission denied", str(self))
        return opened(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse_locked)
    code, out, err = _check(capsys, str(folder), "--format", "json")
    report = json.loads(out)
    assert (code, err) == (ExitCode.VIOLATED, "")
    assert [(Path(t["file"]).name, t["conforms"]) for t in report["traces"]] == [
        ("603.2h.json", True),
        ("603.3b.json", True),
        ("603.6d.json", True),
        ("broken.json", False),
    ]
    assert [(Path(u["source"]).name, u["line"], u["pointer"], u["message"]) for u in report["unreadable"]] == [
        ("corrupt.json", None, "", "not JSON: Expecting value at line 1 column 11"),
        ("empty.jsonl", None, "", "holds no trace (a JSON Lines stream has one trace per line)"),
        ("locked.json", None, "", "cannot be read: Permission denied"),
    ]
    # Without the broken trace, the unreadable files alone give exit status 5.
    (folder / "broken.json").unlink()
    code, out, _ = _check(capsys, str(folder))
    assert code == ExitCode.UNREADABLE
    assert "6 traces, 3 conform, 0 break a clause, 3 unreadable;" in out


def test_stdin_lines_that_are_not_utf8_spoil_only_themselves(capsys, monkeypatch):
    text = (GOOD[0] + "\n").encode() + b"\xc3\x28 not UTF-8\n" + (GOOD[1] + "\n").encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text), encoding="utf-8"))
    code, out, _ = _check(capsys, "-", "--format", "json")
    report = json.loads(out)
    assert code == ExitCode.UNREADABLE
    assert [t["file"] for t in report["traces"]] == ["<stdin>:1", "<stdin>:3"]
    (item,) = report["unreadable"]
    assert item == {"source": "<stdin>", "line": 2, "pointer": "", "message": item["message"]}
    assert item["message"] == "not UTF-8 text (invalid continuation byte at byte 0)"


def test_outcomes_keep_input_order_in_worker_processes(tmp_path: Path):
    stream = tmp_path / "engine.jsonl"
    _stream(stream, broken_at=3)
    items = list(conformance.inputs([str(stream)]))
    seen: list[tuple[int, int]] = []
    serial = conformance.check_all(items, all_violations=True, jobs=1, progress=lambda *done: seen.append(done))
    parallel = conformance.check_all(items, all_violations=True, jobs=2)
    assert [o.to_json() for o in parallel.outcomes] == [o.to_json() for o in serial.outcomes]
    lines = [o.file.rsplit(":", 1)[1] if isinstance(o, conformance.TraceResult) else o.line for o in serial.outcomes]
    assert list(map(int, lines)) == sorted(map(int, lines))
    assert seen[-1] == (len(items), len(serial.unreadable)) == (len(items), len(CORRUPT))


def test_a_missing_path_is_still_a_usage_error(capsys, tmp_path: Path):
    stream = tmp_path / "engine.jsonl"
    _stream(stream)
    (tmp_path / "nothing").mkdir()
    for missing, expected in [
        (tmp_path / "nope.jsonl", "nope.jsonl: no such file or directory"),
        (tmp_path / "nothing", "nothing: directory has no trace files"),
    ]:
        code, out, err = _check(capsys, str(stream), str(missing))
        assert (code, out) == (ExitCode.USAGE, "")
        assert err.count("\n") == 1 and expected in err


def test_help_documents_every_exit_status_of_check(capsys):
    assert main(["check", "--help"]) == ExitCode.OK
    epilog = capsys.readouterr().out.split("exit status:\n")[1]
    documented = {int(line.split()[0]) for line in epilog.splitlines() if line.split()[0].isdigit()}
    assert documented == {ExitCode.OK, ExitCode.VIOLATED, ExitCode.USAGE, ExitCode.UNKNOWN, ExitCode.UNREADABLE}


def test_a_line_past_the_limit_is_unreadable_and_the_stream_goes_on(monkeypatch):
    limit = max(len(GOOD[0]), len(GOOD[1])) + 10
    monkeypatch.setattr(conformance, "MAX_LINE", limit)  # the limit, small for the test (it is 64 MiB)
    stream = io.BytesIO(f"{GOOD[0]}\n{'x' * 3 * limit}\n{GOOD[1]}\n".encode())
    items = list(conformance.inputs(["-"], stdin=stream))
    assert [type(i).__name__ for i in items] == ["_Input", "Unreadable", "_Input"]
    assert items[1].where == "<stdin>:2" and items[1].message.startswith("a line longer than")
    assert "the rest of the stream" not in items[1].message


def test_a_line_that_never_ends_ends_the_stream_in_bounded_memory(monkeypatch):
    """``rule603 check - < /dev/zero`` ran until memory was exhausted (issue 40): now the line past the limit and
    as much again without an end of line is where the stream stops being read."""

    class Zeros(io.RawIOBase):  # /dev/zero, counting what is read from it
        read_bytes = 0

        def readline(self, size: int = -1) -> bytes:
            assert size > 0, "a read without a limit"
            Zeros.read_bytes += size
            return b"\0" * size

    monkeypatch.setattr(conformance, "MAX_LINE", 4096)
    (item,) = conformance.inputs(["-"], stdin=Zeros())
    assert item.where == "<stdin>:1" and "the rest of the stream is not read" in item.message
    assert Zeros.read_bytes <= 4097 + 4096 + 2**20  # the line, the skip, one chunk: not the whole device


def test_rule603_check_of_an_endless_stdin_is_a_result_not_a_crash(monkeypatch, capsys):
    monkeypatch.setattr(conformance, "MAX_LINE", 4096)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\0" * 20000)))
    assert main(["check", "-"]) == ExitCode.UNREADABLE
    assert "the rest of the stream is not read" in capsys.readouterr().out.replace("\n", " ").replace("  ", " ")


def test_a_trace_past_the_moments_limit_is_refused_before_it_is_decoded(tmp_path, capsys):
    """Issue 40: a trace of 5,000 moments was worked on for most of a minute; past 1,000 it is unreadable at once."""
    from rule603._internal.trace import MAX_MOMENTS

    data = json.loads((Path(__file__).resolve().parents[1] / "examples" / "traces" / "board-wipe.json").read_text())
    data["states"] = [data["states"][0]] * (MAX_MOMENTS + 1)
    path = tmp_path / "long.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["check", str(path), "--format", "json"]) == ExitCode.UNREADABLE
    (unreadable,) = json.loads(capsys.readouterr().out)["unreadable"]
    assert unreadable["pointer"] == "/states" and f"{MAX_MOMENTS + 1} moments" in unreadable["message"]
