"""The examples in README.md and docs/*.md run, and print what the pages say they print.

The convention, for whoever writes a page:

- A fenced block whose info string is ``console`` holds example commands, doctest-style: a line
  ``$ rule603 ...`` is a command, and the lines after it, up to the next ``$`` line or the end of
  the block, are what it prints (standard output, then standard error).  Use a longer fence
  (four backticks) when the output itself holds a three-backtick fence, as ``rule603 rule``'s does.
- The command line may end with a shell comment ``# exit N``: the exit status it must give.
  Without one, the command must exit 0, so an example that fails says so.
- ``console exhaustive`` marks a slow example (the whole catalogue, the mutation study): it runs
  only under ``pytest -m exhaustive``.
- In the expected output, a line that is just ``...`` stands for any number of lines (none
  included), and ``...`` inside a line for any text within that line, as doctest's ELLIPSIS.
- Blocks that are not to be run (installing, shell pipelines, commands that rewrite committed
  files) use ``sh``; outputs shown without a command use ``text``.

Before comparing, both texts are normalised (``normalise``): trailing spaces go; times become
``N`` (a number before ``s``, ``ms`` or ``traces/s``: ``in 41.9 s``, ``(22 traces/s``); in a
table, the cells of the columns whose figures depend on the machine (``TIMED_COLUMNS``: the
seconds, the growth factor between bounds, peak memory) become ``~``, header and rule included,
so that a wider time shifts nothing else.

The slow examples share the solver's answers (``shared_answers``): README's ``rule603 verify`` and
docs/verify.md's ``rule603 verify --adequacy`` ask the same questions of the same encoding (two minutes each in CI),
so a verifier's ``check_all``, ``adequacy`` and ``cut_off`` are computed once per edition, universe, options and
list of properties, and each command still renders its own output from them.

Each command runs in this process (``rule603.cli.main``), in a scratch directory whose entries
link to the repository's: relative paths read as from the repository root, and anything a
command creates (``rule603-out/``, an edition added with ``editions --add``) lands in the scratch
directory, never in the checkout.
"""

from __future__ import annotations

import difflib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from rule603 import cli
from rule603._internal import editions
from rule603._internal.verify import Verifier
from rule603._internal.workers import Workers

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MOST_LINES = 150  # issue 39: a newcomer reads the README in ten minutes; the rest is in docs/

FENCE = re.compile(r"^(`{3,})\s*(.*)$")
EXIT = re.compile(r"\s+# exit (\d+)$")
TIME = re.compile(r"\b\d[\d,]*(?:\.\d+)?(?= ?(?:s|ms|traces/s)\b)")
TABLE_RULE = re.compile(r"-+(?: +-+)*")  # tabulate's line under a table's header
TIMED_COLUMNS = {"seconds", "total s", "encode s", "in z3 s", "vs previous", "peak MiB"}
ELLIPSIS = "..."


@dataclass(frozen=True)
class Fence:
    """A fenced block of a Markdown page: its info string, the line of its opening, its lines."""

    info: str
    line: int  # 1-based, of the opening fence
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Example:
    page: Path
    line: int  # 1-based, of the command
    command: str
    expected: str
    status: int
    exhaustive: bool

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def fences(text: str) -> list[Fence]:
    """The fenced blocks of a page; a block closes only at a fence at least as long as its opening."""
    found, opening, info, start, body = [], None, "", 0, []
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if opening is None:
            if match:
                opening, info, start, body = match.group(1), match.group(2).strip(), number, []
        elif match and line.strip() == match.group(1) and len(match.group(1)) >= len(opening):
            found.append(Fence(info, start, tuple(body)))
            opening = None
        else:
            body.append(line)
    assert opening is None, f"a fence opened at line {start} is never closed"
    return found


def outside_fences(text: str) -> list[str]:
    """The page's lines with every fenced block blanked out (its headings and links are not the page's)."""
    lines = text.splitlines()
    for fence in fences(text):
        for i in range(fence.line - 1, fence.line + len(fence.lines) + 1):
            lines[i] = ""
    return lines


def examples(page: Path) -> list[Example]:
    found = []
    for fence in fences(page.read_text(encoding="utf-8")):
        kind, *flags = fence.info.split() or [""]
        if kind != "console":
            continue
        assert set(flags) <= {"exhaustive"}, f"{page.name}:{fence.line}: unknown flag in ```{fence.info}"
        commands = [i for i, line in enumerate(fence.lines) if line.startswith("$ ")]
        assert commands and commands[0] == 0, f"{page.name}:{fence.line}: a console block starts with a $ line"
        for i, end in zip(commands, [*commands[1:], len(fence.lines)], strict=True):
            command, status = fence.lines[i][2:], 0
            if match := EXIT.search(command):
                command, status = command[: match.start()], int(match.group(1))
            expected = "\n".join(fence.lines[i + 1 : end])
            found.append(Example(page, fence.line + 1 + i, command, expected, status, "exhaustive" in flags))
    return found


def normalise(text: str) -> list[str]:
    """The lines of an output with what depends on the machine (times, memory) replaced: see the module doc."""
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    out: list[str] = []
    timed: list[tuple[int, int]] = []  # the columns of the table being read whose cells vary
    for i, line in enumerate(lines):
        if not line:
            timed = []
        elif i and TABLE_RULE.fullmatch(line):
            header = lines[i - 1]
            columns = [m.span() for m in re.finditer(r"-+", line)]
            timed = [(a, b) for a, b in columns if header[a:b].strip() in TIMED_COLUMNS]
            out[-1] = TIME.sub("N", _blank(header, timed))
        out.append(TIME.sub("N", line if line == ELLIPSIS else _blank(line, timed)))
    return out


def _blank(line: str, columns: list[tuple[int, int]]) -> str:
    for a, b in reversed(columns):  # from the right, so that the positions on the left still hold
        line = line[:a] + "~" + line[b:]
    return line


def matches(expected: list[str], actual: list[str]) -> bool:
    """``actual`` is ``expected``, where ``...`` lines stand for any lines and ``...`` in a line for any text."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?" if line == ELLIPSIS else r"[^\n]*?".join(map(re.escape, line.split(ELLIPSIS))) + r"\n"
        for line in expected
    )
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual)) is not None


ALL = [example for page in PAGES for example in examples(page)]


def test_times_are_not_compared_and_everything_else_is():
    page = """property    verdict     seconds
----------  --------  ---------
a           holds          2.09
...

1 hold in 3.4 s (22 traces/s)"""
    run = """property    verdict     seconds
----------  --------  ---------
a           holds        123.4
b           holds          0.3

1 hold in 41.9 s (7 traces/s)"""
    assert matches(normalise(page), normalise(run))
    assert not matches(normalise(page), normalise(run.replace("a           holds", "a           fails")))
    assert not matches(normalise(page), normalise(run.replace("1 hold", "2 hold")))
    assert matches(normalise("x: ... here"), normalise("x: anything at all here"))
    assert not matches(normalise("x: ... here"), normalise("x: any\nthing here"))  # ... in a line spans no lines


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A directory that reads like the repository root but keeps what commands write to itself."""
    folder = tmp_path_factory.mktemp("doc-examples")
    for entry in ROOT.iterdir():
        if entry.name not in {".git", ".venv"}:
            (folder / entry.name).symlink_to(entry)
    return folder


SHARED = ("check_all", "adequacy", "cut_off")  # the methods whose answers the slow examples share
ASKED = (Verifier, Workers)  # one encoding, or worker processes (``verify --jobs``): the same questions


@pytest.fixture(scope="module")
def answers() -> dict[tuple, tuple[object, object]]:
    """The shared answers of this module's slow examples: key -> (the edition asked of, the answer)."""
    return {}


@pytest.fixture
def shared_answers(answers, monkeypatch):
    """A verifier asked what another verifier of this module was asked before -- the same edition (object),
    universe, solver options and properties -- gives the answer it gave (see the module doc)."""

    def sharing(name: str, compute):
        def shared(verifier: Verifier | Workers, *args, **kwargs):
            props = tuple(args[0]) if args else ()
            universe = verifier.universe if isinstance(verifier, Workers) else verifier.encoding.universe
            key = (name, id(verifier.edition), tuple(sorted(universe.sizes.items())), verifier.options, props)
            # (a shared answer skips the progress steps: the display is shown only on a terminal)
            if key not in answers:  # (the edition is kept with the answer, so that its id is not another's later)
                answers[key] = (verifier.edition, compute(verifier, *args, **kwargs))
            return answers[key][1]

        return shared

    for asked in ASKED:
        for name in SHARED:
            monkeypatch.setattr(asked, name, sharing(name, getattr(asked, name)))
    monkeypatch.setattr(Workers, "start_cut_off", lambda self: None)  # asked for (and shared) by ``cut_off``


@pytest.mark.parametrize(
    "example", [pytest.param(e, id=str(e), marks=[pytest.mark.exhaustive] if e.exhaustive else []) for e in ALL]
)
def test_example_prints_what_the_page_says(example, scratch, monkeypatch, capsys, request):
    if example.exhaustive:
        request.getfixturevalue("shared_answers")
    argv = shlex.split(example.command)
    assert argv[0] == "rule603", f"{example}: a console block runs rule603 commands only (use ```sh for others)"
    monkeypatch.chdir(scratch)
    added = scratch / "added-editions"
    added.mkdir(exist_ok=True)
    monkeypatch.setattr(editions, "editions_folder", lambda: added)  # `editions --add` must not touch models/
    status = cli.main(argv[1:])
    captured = capsys.readouterr()
    actual = normalise(captured.out + captured.err)
    expected = normalise(example.expected)
    diff = "\n".join(difflib.unified_diff(expected, actual, "the page", "the command", lineterm=""))
    assert matches(expected, actual), f"{example}: `{example.command}` prints otherwise:\n{diff}"
    assert status == example.status, f"{example}: `{example.command}` exits {status}, the page says {example.status}"


def test_no_command_escapes_the_check():
    """A `$ rule603` line outside a ``console`` block would look like an example and never be run."""
    stray = [
        f"{page.relative_to(ROOT)}:{fence.line}"
        for page in PAGES
        for fence in fences(page.read_text(encoding="utf-8"))
        if not fence.info.startswith("console") and any(line.startswith("$ ") for line in fence.lines)
    ]
    assert not stray, f"a $ command in a block that is not ```console: {stray}"


def test_every_page_has_examples_and_the_readme_has_one_per_job():
    commands = {e.command.split()[1] for e in ALL if e.page.name == "README.md"}
    assert {"verify", "check", "rule"} <= commands
    assert any(e.exhaustive for e in ALL) and any(not e.exhaustive for e in ALL)


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines < README_MOST_LINES, f"README.md has {lines} lines; move detail into docs/"


# --- links --------------------------------------------------------------------------------

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*$")


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as '-', repeats numbered."""
    seen: dict[str, int] = {}
    for line in outside_fences(page.read_text(encoding="utf-8")):
        if match := HEADING.match(line):
            title = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1))  # markup is not part of the anchor
            slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
            seen[slug] = seen.get(slug, -1) + 1
            if seen[slug]:
                seen[f"{slug}-{seen[slug]}"] = 0
    return set(seen)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_somewhere(page):
    broken = []
    for number, line in enumerate(outside_fences(page.read_text(encoding="utf-8")), 1):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:: not ours to check offline
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"line {number}: {target}: no such file")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                broken.append(f"line {number}: {target}: no heading #{anchor} in {file.name}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_a_shared_answer_is_given_only_to_the_same_question(shared_answers, answers, capsys):
    def verify(*more: str) -> list[str]:
        # (1 with --adequacy: one property does not cover every clause)
        assert cli.main(["verify", "--bound", "2", "--property", "delayed-fires-once", *more]) in (0, 1)
        return normalise(capsys.readouterr().out)

    first, asked = verify(), len(answers)
    assert asked >= 2  # check_all and cut_off
    assert verify() == first and len(answers) == asked  # the same question: the answer given before
    verify("--adequacy")
    assert len(answers) == asked + 1  # adequacy is a new question; check_all and cut_off were asked
    verify("--seed", "1")
    assert len(answers) == asked + 1 + 2  # other solver options: other questions
