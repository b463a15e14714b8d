"""Headless Chromium for the HTML reports: load a page, run a probe, read back what the browser laid out.

The reports have no scripts; the probe is appended by the tests only.  A machine without
Chromium skips the test with a message (``.ci/run`` installs Debian's ``chromium``).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
# ``seen(el)``: the browser laid the element out with a size (it is not hidden or collapsed).
PROBE = """
<script>
const seen = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
document.body.setAttribute('data-probe', JSON.stringify(%s));
</script>
"""


def _browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on this machine: .ci/run installs Debian's 'chromium' package; install it to run this")


def probe(page: str, report: str, tmp_path: Path) -> dict:
    """Render ``page`` and return ``report``, a JavaScript object expression evaluated once it is laid out."""
    path = tmp_path / "probe.html"
    path.write_text(page.replace("</body>", PROBE % report + "</body>"), encoding="utf-8")
    result = subprocess.run(
        [_browser(), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", path.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    match = re.search(r"data-probe=\"([^\"]*)\"", result.stdout)
    assert match, f"the browser rendered nothing usable: {result.stderr[-500:]}"
    return json.loads(html.unescape(match.group(1)))
