"""Run every benchmark and write one markdown report with their figures (``make bench``).

Each ``bench/*_bench.py`` prints its own figures beside the baselines it measured
in the same run; this collects them, with the machine's description, into
``bench/reports/report.md`` (and keeps going if one fails, marking it).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
REPORTS = HERE / "reports"
TIMEOUT = int(os.environ.get("PARLOR_BENCH_TIMEOUT", "900"))


def main() -> int:
    REPORTS.mkdir(exist_ok=True)
    scripts = sorted(HERE.glob("*_bench.py"))
    only = sys.argv[1:]
    if only:
        scripts = [s for s in scripts if any(o in s.name for o in only)]
    lines = [
        "# Parlor benchmarks",
        "",
        f"- when: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores,"
        f" Python {platform.python_version()}",
        f"- load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        "",
        "Every figure is printed by its script beside a baseline measured in the same run.",
        "",
    ]
    failed = []
    for script in scripts:
        print(f"== {script.name}", flush=True)
        started = time.monotonic()
        try:
            proc = subprocess.run(
                [sys.executable, str(script)],
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                env={**os.environ, "PARLOR_BENCH_REPORT_DIR": str(REPORTS)},
            )
            output, ok = proc.stdout, proc.returncode == 0
            if not ok:
                output += "\n" + proc.stderr[-3000:]
        except subprocess.TimeoutExpired:
            output, ok = f"timed out after {TIMEOUT} s", False
        print(output, flush=True)
        elapsed = time.monotonic() - started
        lines += [
            f"## {script.stem}",
            "",
            f"({elapsed:.0f} s{'' if ok else ', FAILED'})",
            "",
            "```",
            output.rstrip(),
            "```",
            "",
        ]
        for image in sorted(REPORTS.glob(f"{script.stem}*.png")):
            lines += [f"![{image.stem}]({image.name})", ""]
        if not ok:
            failed.append(script.name)
    report = REPORTS / "report.md"
    report.write_text("\n".join(lines))
    print(f"report: {report}")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
