"""Run every benchmark and write one markdown report with their figures (``make bench``).

Each ``bench/*_bench.py`` prints its own figures beside the baselines it measured
in the same run; this collects them, with the machine's description, into
``bench/reports/report.md`` (and keeps going if one fails, marking it).

Every benchmark names what it makes on the shared PostgreSQL and NATS after this run
(``parlor.devinfra.scratch``) and removes it when it ends. One that runs out of time is
interrupted (SIGINT, so its ``finally`` blocks run) and killed only if it does not stop;
what a killed one left is removed here. The run first sweeps what killed runs left hours
ago, and at its end lists what it made and fails if any of it is still there.

    python bench/run_all.py [--quick] [NAME...]

``--quick`` runs every benchmark briefly (``PARLOR_BENCH_QUICK=1``: the benchmarks that
know it measure shorter windows and fewer steps); names pick the scripts to run.
"""

from __future__ import annotations

import contextlib
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from parlor.devinfra import scratch
from parlor.devinfra.backends import Backends, BackendsNotFound, find_backends

HERE = Path(__file__).parent
REPORTS = HERE / "reports"
TIMEOUT = int(os.environ.get("PARLOR_BENCH_TIMEOUT", "900"))
GRACE = 60  # seconds an interrupted benchmark has to clean up before it is killed
QUICK = "--quick" in sys.argv[1:]


def run_script(script: Path) -> tuple[str, bool, bool]:
    """Its output, whether it succeeded, and whether it had to be killed."""
    env = {**os.environ, "PARLOR_BENCH_REPORT_DIR": str(REPORTS)}
    if QUICK:
        env["PARLOR_BENCH_QUICK"] = "1"
    with subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group: whatever it starts is stopped with it
    ) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            stdout, killed = stop(proc)
            how = "killed" if killed else "interrupted"
            return f"{stdout}\ntimed out after {TIMEOUT} s ({how})", False, killed
        except KeyboardInterrupt:
            stop(proc)
            raise
    ok = proc.returncode == 0
    return stdout if ok else stdout + "\n" + stderr[-3000:], ok, False


def stop(proc: subprocess.Popen[str]) -> tuple[str, bool]:
    """Interrupt a benchmark like Ctrl-C, so its finally blocks clean up; kill it if it hangs.

    Both reach its whole process group, as Ctrl-C would: a platform it started stops too.
    """
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGINT)
    try:
        return proc.communicate(timeout=GRACE)[0] or "", False
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        return proc.communicate()[0] or "", True


@contextlib.contextmanager
def shared_servers() -> Iterator[Backends | None]:
    """The PostgreSQL and NATS the benchmarks share, if any (embedded ones are private)."""
    with contextlib.ExitStack() as stack:
        try:
            found: Backends | None = stack.enter_context(find_backends(("settings", "local")))
        except BackendsNotFound:
            found = None
        yield found


def run_each(
    scripts: list[Path],
    run: scratch.Run,
    servers: Backends | None,
    lines: list[str],
    failed: list[str],
) -> None:
    for script in scripts:
        print(f"== {script.name}", flush=True)
        started = time.monotonic()
        output, ok, killed = run_script(script)
        if killed and servers:  # it could not clean up: do it for it
            left = scratch.on_servers(run, servers.database_url, servers.nats_url)
            scratch.remove(servers.database_url, servers.nats_url, left, force=True)
            output += "".join(f"\nremoved what it left: {item}" for item in left)
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


def main() -> int:
    run = scratch.begin_run(Path(tempfile.gettempdir()) / "parlor-scratch")
    scratch.interrupt_on_sigterm()
    try:
        with shared_servers() as servers:
            return run_all(run, servers)
    finally:
        scratch.end_run()


def run_all(run: scratch.Run, servers: Backends | None) -> int:
    REPORTS.mkdir(exist_ok=True)
    swept = scratch.sweep(servers.database_url, servers.nats_url) if servers else []
    scripts = sorted(HERE.glob("*_bench.py"))
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    if only:
        scripts = [s for s in scripts if any(o in s.name for o in only)]
    lines = [
        "# Parlor benchmarks",
        "",
        f"- when: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores,"
        f" Python {platform.python_version()}",
        f"- load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        *(["- quick run (`--quick`): short windows, figures are indicative only"] if QUICK else []),
        "",
        "Every figure is printed by its script beside a baseline measured in the same run.",
        "",
    ]
    failed: list[str] = []
    try:
        run_each(scripts, run, servers, lines, failed)
    except KeyboardInterrupt:
        failed.append("the run (interrupted)")
    if servers is None:
        check = ["no shared PostgreSQL and NATS: each benchmark ran its own, embedded"]
    else:
        end = scratch.finish(run, servers.database_url, servers.nats_url)
        check = end.lines(every_name=True)
        if not end.clean:
            failed.append("the check that nothing is left on the servers")
    if swept:
        check += [f"swept {len(swept)} left-overs of earlier runs:", *(f"  {s}" for s in swept)]
    lines += ["## left on PostgreSQL and NATS", "", *check, ""]
    print("\n".join(check), flush=True)
    report = REPORTS / "report.md"
    report.write_text("\n".join(lines))
    print(f"report: {report}")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
