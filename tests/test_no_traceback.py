"""No traceback, ever (issue 20): each class of hostile input the outside campaign found, with the one line
it now gets; the last resort (exit 4) for what is a bug of ours; ``rule603 --version``.

tests/test_fuzz_inputs.py generates such inputs by the thousand; these are the named cases.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
import rule603._internal.editions as editions
from rule603._internal import conformance, usercode
from rule603._internal.schema import Schema
from rule603._internal.trace import load, parse
from rule603.cli import ExitCode, main
from rule603.errors import TraceFormatError

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT / "examples" / "traces" / "board-wipe.json"
SCENARIO = ROOT / "scenarios" / "603.2-soul-warden.toml"
HUGE = "9" * 5000


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(capsys, *argv: str) -> str:
    """The error a user mistake gets: status 2 and one line on stderr, nothing else; its text."""
    code, out, err = run(capsys, *argv)
    assert code == ExitCode.USAGE, err
    assert err.startswith("rule603: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and out == ""
    return err[len("rule603: error: ") : -1]


def unreadable(capsys, path: Path) -> str:
    """What ``rule603 check`` says of one input that is not a trace: a result of its own (status 5), no error."""
    code, out, err = run(capsys, "check", "--format", "json", str(path))
    assert code == ExitCode.UNREADABLE and err == "", err
    (item,) = json.loads(out)["unreadable"]
    return f"{item['source']}: at {item['pointer'] or '/'}: {item['message']}"


@pytest.fixture(autouse=True)
def crash_reports(tmp_path, monkeypatch) -> Path:
    """Where the last resort saves tracebacks during these tests (not the machine's temp folder)."""
    folder = tmp_path / "crash"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# --- documents nested thousands of levels deep; integers of thousands of digits -----------------------------


def test_deep_json_is_a_located_error_in_show_and_check(capsys, tmp_path):
    path = write(tmp_path, "deep.json", '{\n "a": 1,\n "b": ' + "[" * 5000 + "]" * 5000 + "\n}\n")
    expected = f"{path}: at /: nested too deeply: arrays or objects more than 100 levels inside one another (line 3)"
    assert one_line(capsys, "show", str(path)) == expected
    assert unreadable(capsys, path) == expected


def test_huge_integers_are_a_located_error_in_show_and_check(capsys, tmp_path):
    path = write(tmp_path, "huge.json", '{\n "#meta": {"universe": {"card": ' + HUGE + "}}}\n")
    expected = f"{path}: at /: a number of 5000 digits; numbers here have a few digits at most (line 2)"
    assert one_line(capsys, "show", str(path)) == expected
    assert unreadable(capsys, path) == expected


def test_the_trace_loader_raises_trace_format_errors_for_both(tmp_path):
    """What ``rule603 check`` reports a trace by: a TraceFormatError with the source and the pointer."""
    schema = Schema(())
    for text, words in (("[" * 5000 + "]" * 5000, "nested too deeply"), (HUGE, "a number of 5000 digits")):
        with pytest.raises(TraceFormatError) as info:
            parse(text, "stream.jsonl:3")
        assert (info.value.source, info.value.pointer) == ("stream.jsonl:3", "") and words in info.value.message
        path = write(tmp_path, "t.json", text)
        with pytest.raises(TraceFormatError, match=words):
            load(path, schema)
        result = conformance.TraceChecker().check_input(conformance._Input("stream.jsonl", text, 3))
        assert isinstance(result, conformance.Unreadable)
        assert str(result).startswith("stream.jsonl:3: at /: ") and words in result.message


def test_a_bigint_of_thousands_of_digits_is_out_of_range_not_unreadable(capsys, tmp_path):
    data = json.loads(TRACE.read_text(encoding="utf-8"))
    data["states"][1]["turn"] = {"#bigint": HUGE}
    path = write(tmp_path, "t.json", json.dumps(data))
    assert one_line(capsys, "show", str(path)) == (
        f"{path}: at /states/1/turn: expected a non-negative integer, got a #bigint of 5000 digits"
    )


def test_deep_and_huge_toml_name_the_scenario_file_and_line(capsys, tmp_path):
    deep = write(tmp_path, "deep.toml", 'title = "x"\n\nx = ' + "[" * 3000 + "]" * 3000 + "\n")
    assert one_line(capsys, "rule", str(deep)) == (
        f"{deep}:3: nested too deeply: arrays or tables more than 100 levels inside one another"
    )
    huge = write(tmp_path, "huge.toml", 'title = "x"\n\n\nslots = ' + HUGE + "\n")
    assert (
        one_line(capsys, "rule", str(huge))
        == f"{huge}:4: a number of 5000 digits; numbers here have a few digits at most"
    )


def test_a_huge_hexadecimal_integer_in_a_scenario_is_shown_short(capsys, tmp_path):
    """0x... has no digit limit in Python, but repr() of the number has: messages must not call it."""
    text = SCENARIO.read_text(encoding="utf-8").replace("at = 4", "at = 0x" + "f" * 5000)
    path = write(tmp_path, "hex.toml", text)
    message = one_line(capsys, "rule", str(path))
    assert message.startswith(f"{path}:") and "a number of about 6021 digits" in message and len(message) < 300


# --- option values ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["verify", "--timeout", "1e308"],
            "--timeout 1e308: must be a positive number of seconds, from 0.001 to 4294967",
        ),
        (["diff", "2004", "2008", "--timeout", "1e308"], "--timeout 1e308: must be a positive number of seconds"),
        (["rule", str(SCENARIO), "--timeout", "1e308"], "--timeout 1e308: must be a positive number of seconds"),
        (["bench", "--timeout", "1e308"], "--timeout 1e308: must be a positive number of seconds"),
        (["verify", "--timeout", "nan"], "--timeout nan: must be a positive number of seconds"),
        (["verify", "--timeout", "1e-300"], "--timeout 1e-300: must be a positive number of seconds"),
        (["verify", "--bound", "1" + "0" * 5000], "--bound 10000000000000000000…[5001 characters]…0000000000: must be"),
        (["audit", "--jobs", "-1"], "--jobs -1: must be between 1 and twice the number of cores"),
        (["check", str(TRACE), "--jobs", "-1"], "--jobs -1: must be 0 (automatic) to 64"),
        (["verify", "--seed", str(2**64)], "--seed 18446744073709551616: must be between 0 and 4294967295"),
        (["verify", "--rlimit", str(2**64)], "--rlimit 18446744073709551616: must be 0 (no limit) to 4294967295"),
        (["verify", "--claim-timeout", "inf"], "--claim-timeout inf: must be a positive number of seconds"),
        (["mutants", "--scenarios", HUGE], "--scenarios 99999999999999999999…[5000 characters]…9999999999: must be"),
        (["bench", "--bounds", ","], "--bounds ,: expected comma-separated whole numbers from 1 to 30, e.g. 4,6,8"),
        (["bench", "--check", "0"], "--check 0: must be between 1 and 1000000"),
        (["verify", HUGE], "rule603: unrecognized arguments: 99999999999999999999"),
    ],
)
def test_option_values_that_overflow_get_one_line_naming_the_option(capsys, argv, message):
    assert one_line(capsys, *argv).startswith(message)


def test_every_message_keeps_a_long_word_short(capsys):
    message = one_line(capsys, "clauses", "--edition", "x" * 10000)
    assert message.startswith("--edition xxxx") and "[10001 characters]" in message and len(message) < 400


# --- outputs found unwritable only after the work; paths and ids longer than the system allows -------------


def test_unwritable_outputs_are_refused_before_any_work(capsys, tmp_path, monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("the work began before the output was checked")

    for name in ("report.full_run", "audit.audit", "rule._rule_one", "diff._one_diff"):
        monkeypatch.setattr(f"rule603.commands.{name}", no_work)
    blocker = write(tmp_path, "file", "the user's file\n")
    long_name = str(tmp_path / ("r" * 300))
    cases = [
        (["report", "--bound", "1", "--output", str(blocker / "r.md")], f"--output {blocker}/r.md: no such directory"),
        (["report", "--bound", "1", "--out", str(blocker / "sub")], "cannot create it (Not a directory)"),
        (["audit", "--bound", "1", "--out", long_name], "File name too long"),
        (["rule", str(SCENARIO), "--out", str(blocker)], "exists and is not a directory"),
        (["diff", "2004", "2008", "--out", str(blocker / "x")], "cannot create it (Not a directory)"),
        (["schema", "--output", long_name], "File name too long"),
        (["check", str(TRACE), "--output", str(blocker)], "already exists; add --overwrite to replace it"),
        (["bench", "--output", str(blocker)], "already exists; choose another file"),
        (["verify", "--save-traces", long_name], "File name too long"),
    ]
    if Path("/proc/self").is_dir():  # a place even root cannot create a file in
        cases.append((["report", "--bound", "1", "--output", "/proc/rule603.md"], "cannot be written"))
    for argv, message in cases:
        assert message in one_line(capsys, *argv), argv
    assert blocker.read_text(encoding="utf-8") == "the user's file\n"


def test_paths_longer_than_the_system_allows(capsys, tmp_path):
    long = str(tmp_path / ("a" * 300))
    for argv in (["show", long], ["check", long], ["rule", long], ["verify", "--property-file", long]):
        assert one_line(capsys, *argv).endswith(": File name too long"), argv
    assert one_line(capsys, "editions", "--add", long, "--id", "x").startswith("--add ")


def test_ids_longer_than_allowed(capsys, tmp_path, monkeypatch):
    (tmp_path / "editions").mkdir()
    monkeypatch.setattr(editions, "editions_folder", lambda: tmp_path / "editions")
    fixture = str(ROOT / "tests" / "fixtures" / "MagicCompRules-fixture.txt")
    message = one_line(capsys, "editions", "--add", fixture, "--id", "a" * 300)
    assert message.startswith("--id aaaa") and "at most 64" in message
    assert list((tmp_path / "editions").iterdir()) == []
    props = write(
        tmp_path,
        "p.py",
        f"from rule603 import prop\n\n@prop('{'a' * 101}', clauses=['603.2'])\ndef f(g, t):\n    return True\n",
    )
    assert "(line 3): InvalidArgument: prop(id='aaaa" in one_line(capsys, "properties", "--property-file", str(props))


def test_two_scenarios_of_one_name_are_refused_for_one_out_folder(capsys, tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.toml").write_text(SCENARIO.read_text(encoding="utf-8"), encoding="utf-8")
    a, b, out = tmp_path / "a" / "x.toml", tmp_path / "b" / "x.toml", tmp_path / "out"
    assert one_line(capsys, "rule", str(a), str(b), "--out", str(out)) == (
        f"--out {out}: {a} and {b} would both be written as x.md; rename one, or rule them with different --out"
    )
    assert not out.exists()


# --- the user's properties ----------------------------------------------------------------------------------

CLAIM = """\
from rule603 import prop


class Boom(BaseException):
    pass


@prop("mine", clauses=["603.2"])
def claim(g, t):
    {body}
"""


@pytest.mark.parametrize(
    "body, says",
    [
        ("raise SystemExit(0)", "its claim raised SystemExit: 0 at moment 0."),
        ("raise GeneratorExit", "its claim raised GeneratorExit: at moment 0."),
        ("raise Boom('no')", "its claim raised Boom: no at moment 0."),
        ("raise ValueError('x' * 100000)", "its claim raised ValueError: xxxx"),
        ("while True:\n        pass", "its claim ran for more than 0.3 s at moment 0 (the limit for one claim"),
        (
            "while True:\n        try:\n            time.sleep(1)\n        except Exception:\n            pass",
            "its claim ran for more than 0.3 s",
        ),
    ],
)
def test_a_claim_that_raises_anything_or_never_returns_is_the_propertys_error(capsys, tmp_path, body, says):
    path = write(tmp_path, "mine.py", "import time\n" + CLAIM.format(body=body))
    started = time.monotonic()
    message = one_line(
        capsys, "verify", "--no-builtin", "--property-file", str(path), "--bound", "1", "--claim-timeout", "0.3"
    )
    assert message.startswith(f"property mine ({path}:9): ") and says in message and len(message) < 600
    assert time.monotonic() - started < 30


def test_a_claim_that_swallows_every_interruption_ends_the_process_with_one_line(tmp_path):
    """``except BaseException: pass`` in a loop cannot be left any other way (in a real process, then)."""
    body = "while True:\n        try:\n            time.sleep(1)\n        except BaseException:\n            pass"
    path = write(tmp_path, "mine.py", "import time\n" + CLAIM.format(body=body))
    argv = ["verify", "--no-builtin", "--property-file", str(path), "--bound", "1", "--claim-timeout", "0.3"]
    done = subprocess.run([sys.executable, "-m", "rule603.cli", *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == ExitCode.USAGE and done.stdout == ""
    assert done.stderr == (
        f"rule603: error: property mine ({path}:9): its claim at moment 0 ran for more than 0.3 s "
        "and does not stop when interrupted\n"
    )


def test_a_property_file_that_never_finishes_importing(capsys, tmp_path):
    path = write(tmp_path, "slow.py", "x = 0\nwhile True:\n    x += 1\n")
    message = one_line(capsys, "verify", "--property-file", str(path), "--claim-timeout", "0.3")
    assert re.match(
        rf"Error while importing property file '{re.escape(str(path))}' \(line [23]\): it ran for more", message
    )


def test_the_time_limit_interrupts_and_leaves_no_timer_behind():
    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(usercode.OverTime), usercode.time_limit(0.05):
        while True:
            try:
                time.sleep(1)
            except Exception:  # noqa: BLE001 - a claim's own handler does not swallow the interruption
                pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) is before
    with usercode.time_limit(5):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


CLAIM_FN = "def f(g, t):\n    return True\n"


@pytest.mark.parametrize(
    "source, says",
    [
        ("@prop\n" + CLAIM_FN, "(line 3): InvalidArgument: @prop needs an id and clauses"),
        ("@prop('a-b')\n" + CLAIM_FN, "(line 3): InvalidArgument: prop('a-b', clauses=())"),
        ("@prop('a-b', clauses=[603])\n" + CLAIM_FN, "(line 3): InvalidArgument: prop('a-b'): clause=603"),
        ("@prop('a-b', clauses=['603.2\\n'])\n" + CLAIM_FN, "clause='603.2\\n' is not of the form"),
        ("@prop('a-b', clauses=['603.2'], kind='x')\n" + CLAIM_FN, "(line 3): TypeError: prop() got an"),
        ("@prop('a-b', clauses=['603.2'], summary=3)\n" + CLAIM_FN, "summary=3 is not a string"),
        ("x = prop('a-b', clauses=['603.2'])(42)\n", "(line 3): InvalidArgument: @prop('a-b') decorates 42"),
        ("@prop('a-b', clauses=['603.2'])\ndef f(g):\n    return True\n", "@prop('a-b') decorates <function f"),
        ("@prop('a-b', clauses=['603.2'])\nclass C:\n    pass\n", "decorates <class"),
    ],
)
def test_prop_misuse_names_the_file_and_line(capsys, tmp_path, source, says):
    path = write(tmp_path, "mine.py", "from rule603 import prop\n\n" + source)
    message = one_line(capsys, "properties", "--property-file", str(path))
    assert message.startswith(f"Error while importing property file '{path}' (line ") and says in message, message


# --- editions --add -----------------------------------------------------------------------------------------


def test_editions_add_names_the_users_file_and_line_not_the_copy(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(editions, "editions_folder", lambda: tmp_path / "editions")
    (tmp_path / "editions").mkdir()
    rules = write(
        tmp_path,
        "MagicCompRules.txt",
        "Intro\n\n603. Handling Triggered Abilities\n\n603.1. Triggered abilities have a trigger condition.\n"
        "\n603.1a\n",
    )
    assert one_line(capsys, "editions", "--add", str(rules), "--id", "x") == (
        f"{rules}:7: clause 603.1a has no text; expected the rule text after the number, "
        "as in '603.1a Whenever a game event ...'"
    )
    assert one_line(capsys, "editions", "--add", str(rules), "--id", "x", "--date", "x\nFormat: y") == (
        "--date 'x\\nFormat: y': one line of text, e.g. 'April 18, 2025'"
    )
    assert list((tmp_path / "editions").iterdir()) == []


# --- the last resort ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("error", [ZeroDivisionError("division by zero"), RecursionError("too deep"), MemoryError()])
def test_a_bug_of_ours_is_exit_4_with_the_traceback_saved(capsys, monkeypatch, crash_reports, error):
    def crash(args):
        raise error

    monkeypatch.setattr("rule603.commands.schema.run", crash)
    code, out, err = run(capsys, "schema")
    assert code == ExitCode.INTERNAL == 4 and out == ""
    (saved,) = crash_reports.iterdir()
    what = f"{type(error).__name__}: {error}" if str(error) else "MemoryError: out of memory"
    assert (
        err == f"rule603: internal error: {what} \u2014 this is a bug in rule603; the traceback was saved to {saved}\n"
    )
    text = saved.read_text(encoding="utf-8")
    assert text.startswith("rule603 ") and "Traceback (most recent call last)" in text and "in crash" in text


def test_systemexit_from_inside_is_not_a_verdict(capsys, monkeypatch):
    def leave(args):
        sys.exit(0)

    monkeypatch.setattr("rule603.commands.schema.run", leave)
    assert run(capsys, "schema")[0] == ExitCode.INTERNAL


def _die(item):  # a worker process that crashes (in a fork of this process, patched in by the test)
    raise RuntimeError("worker fell over")


@pytest.mark.skipif(multiprocessing.get_start_method() != "fork", reason="patches reach workers only by fork")
def test_a_workers_crash_is_exit_4_not_a_verdict(capsys, monkeypatch):
    monkeypatch.setattr(conformance, "_check_in_process", _die)
    code, _, err = run(capsys, "check", str(TRACE), str(TRACE), "--jobs", "2")
    assert code == ExitCode.INTERNAL and "RuntimeError: worker fell over" in err and "bug in rule603" in err


def test_version(capsys):
    code, out, err = run(capsys, "--version")
    assert code == 0 and err == ""
    assert out.startswith("rule603 0.1.0 (z3 4.15.") and out.endswith(f", Python {sys.version.split()[0]})\n")


def test_help_returns_instead_of_raising(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "usage: rule603" in out


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_standard_output_on_a_full_disk_is_one_line(tmp_path):
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "rule603.cli", "schema"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60
        )
    assert done.returncode == ExitCode.USAGE
    assert done.stderr == "rule603: error: cannot write standard output (No space left on device)\n"


@pytest.mark.parametrize("argv", [["bench", "--bounds", "4,8"], ["verify", "--bound", "8", "--jobs", "2"]])
def test_ctrl_c_stops_every_process_with_one_line_and_exit_130(tmp_path, argv):
    """Ctrl-C goes to the whole process group (the workers too): the command stops, says so in one line, leaves
    no worker behind and no warning of leaked semaphores, and writes no partial output."""
    output = tmp_path / "bench.json"
    command = [sys.executable, "-m", "rule603.cli", *argv] + (["--output", str(output)] if argv[0] == "bench" else [])
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509 - no threads here
    )
    time.sleep(3)  # the workers are started and at work (bound 8 takes far longer than this on any machine)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err.decode().strip().splitlines()[-1] == "rule603: interrupted"
    assert "Traceback" not in err.decode() and "leaked" not in err.decode()
    assert not output.exists()
    for _ in range(300):  # the group's last processes are reaped (a zombie still counts) within seconds
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise AssertionError("a process of the interrupted command is still running after 30 s")
