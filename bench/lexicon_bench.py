"""Figures for parlor.lexicon against naive baselines measured in the same run.

Usage: python bench/lexicon_bench.py [--quick] [--alternatives]

Prints, for the packaged ENABLE lexicon: start-up (load) time, memory of a loaded
lexicon (tracemalloc and RSS delta, each in a fresh process), lookups/s, a 10,000-word
batch check, prefix queries/s, anagram queries/s (7 letters; 7 + 1 blank; 7 + 2 blanks)
and pattern queries/s. Beside each: a naive baseline (a plain set from the uncompressed
text; brute-force scans over every word). ``--alternatives`` adds the structures the
README compares (sorted list + bisect, marisa-trie if installed, a set of all prefixes).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

ENABLE_TEXT = Path(tempfile.gettempdir()) / "parlor-lexicon-bench-enable1.txt"
# Letter frequencies of a Scrabble-like bag, for realistic racks.
BAG = (
    "a" * 9
    + "b" * 2
    + "c" * 2
    + "d" * 4
    + "e" * 12
    + "f" * 2
    + "g" * 3
    + "h" * 2
    + "i" * 9
    + "j"
    + "k"
    + "l" * 4
    + "m" * 2
    + "n" * 6
    + "o" * 8
    + "p" * 2
    + "q"
    + "r" * 6
    + "s" * 4
    + "t" * 6
    + "u" * 4
    + "v" * 2
    + "w" * 2
    + "x"
    + "y" * 2
    + "z"
)


def rate(run: Callable[[], Any], count: int, seconds: float = 1.0) -> float:
    """Operations per second of ``run`` (which does ``count`` operations), best of a few rounds."""
    best = float("inf")
    spent = 0.0
    rounds = 0
    while rounds < 3 or (spent < seconds and rounds < 50):
        start = time.perf_counter()
        run()
        took = time.perf_counter() - start
        best = min(best, took)
        spent += took
        rounds += 1
        if took > seconds and rounds >= 1:
            break
    return count / best


def each(query: Callable[[str], Any], items: list[str]) -> Callable[[], list[Any]]:
    """A run that asks ``query`` about every item."""
    return lambda: [query(item) for item in items]


def row(label: str, ours: str, baseline: str = "", note: str = "") -> None:
    print(f"  {label:<34} {ours:>18}   {baseline:>22}   {note}")


def fmt_rate(value: float) -> str:
    return f"{value:,.0f}/s"


# --- measurements in a fresh interpreter (start-up and memory) ---------------------------

CHILD = r"""
import json, sys, time, tracemalloc
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * __import__("os").sysconf("SC_PAGE_SIZE")
what, path = sys.argv[1], sys.argv[2]
trace = sys.argv[3] == "trace"
import gzip, importlib.resources
if trace:
    tracemalloc.start()
before = rss()
start = time.perf_counter()
if what == "lexicon":
    from parlor.lexicon import enable1
    lexicon = enable1()
    loaded = time.perf_counter()
    traced_loaded = tracemalloc.get_traced_memory()[0] if trace else 0
    lexicon.warm()
    warmed = time.perf_counter()
elif what == "set":
    with open(path) as f:
        words = set(f.read().split())
    loaded = warmed = time.perf_counter()
elif what == "sorted":
    with open(path) as f:
        words = sorted(f.read().split())
    loaded = warmed = time.perf_counter()
elif what == "marisa":
    import marisa_trie
    with open(path) as f:
        trie = marisa_trie.Trie(f.read().split())
    loaded = warmed = time.perf_counter()
out = {"load_s": loaded - start, "warm_s": warmed - loaded, "rss_total": rss() - before}
if trace:
    out["traced"] = tracemalloc.get_traced_memory()[0]
    if what == "lexicon":
        out["traced_loaded"] = traced_loaded
    if what == "marisa":
        out["trie_bytes"] = len(trie.tobytes())
else:
    out["rss_loaded"] = None
print(json.dumps(out))
"""

CHILD_LOADED_RSS = r"""
import json, os, sys, time
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
before = rss()
start = time.perf_counter()
from parlor.lexicon import enable1
lexicon = enable1()
loaded_s = time.perf_counter() - start
loaded = rss()
print(json.dumps({"import_and_load_s": loaded_s, "rss_loaded": loaded - before}))
"""


def child(what: str, trace: bool) -> dict[str, float]:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, what, str(ENABLE_TEXT), "trace" if trace else "rss"],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(result.stdout))


def child_best(what: str, trace: bool, runs: int) -> dict[str, float]:
    """Best (lowest) figures of a few fresh processes, so a noisy neighbour counts less."""
    results = [child(what, trace) for _ in range(runs)]
    return {key: min(r[key] for r in results) for key in results[0] if results[0][key] is not None}


def start_up_and_memory(runs: int, alternatives: bool) -> None:
    print(f"\nStart-up and memory (each in a fresh process; best of {runs})")
    row("", "parlor.lexicon", "baseline: set(text)", "")
    ours = child_best("lexicon", trace=False, runs=runs)
    base = child_best("set", trace=False, runs=runs)
    loaded = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", CHILD_LOADED_RSS], check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(runs)
    ]
    import_and_load = min(item["import_and_load_s"] for item in loaded)
    rss_loaded = min(item["rss_loaded"] for item in loaded)
    row(
        "load (gz -> Lexicon, ms)",
        f"{ours['load_s'] * 1e3:.0f} ms",
        f"{base['load_s'] * 1e3:.0f} ms",
    )
    row("import + load (ms)", f"{import_and_load * 1e3:.0f} ms", "", "the service's start-up cost")
    row("warm: anagram+pattern index (ms)", f"{ours['warm_s'] * 1e3:.0f} ms", "", "lazy, or warm()")
    row("RSS delta, loaded (MB)", f"{rss_loaded / 1e6:.1f} MB", f"{base['rss_total'] / 1e6:.1f} MB")
    row("RSS delta, loaded + warm (MB)", f"{ours['rss_total'] / 1e6:.1f} MB", "")
    ours_t = child_best("lexicon", trace=True, runs=1)
    base_t = child_best("set", trace=True, runs=1)
    row("tracemalloc, loaded (MB)", f"{ours_t['traced_loaded'] / 1e6:.1f} MB", "", "")
    row(
        "tracemalloc, loaded + warm (MB)",
        f"{ours_t['traced'] / 1e6:.1f} MB",
        f"{base_t['traced'] / 1e6:.1f} MB",
    )
    if alternatives:
        for what in ("sorted", "marisa"):
            try:
                alt = child_best(what, trace=False, runs=1)
                traced_run = child_best(what, trace=True, runs=1)
                traced = traced_run.get("trie_bytes", traced_run["traced"])
            except subprocess.CalledProcessError:
                row(f"alt {what}", "not installed")
                continue
            row(
                f"alt {what}: load, RSS, traced",
                f"{alt['load_s'] * 1e3:.0f} ms",
                f"{alt['rss_total'] / 1e6:.1f} MB RSS",
                f"{traced / 1e6:.1f} MB (traced; marisa: its own size)",
            )


# --- in-process queries -------------------------------------------------------------------


def queries(quick: bool, alternatives: bool) -> None:
    from parlor.lexicon import MAX_LIMIT, enable1

    rng = random.Random(2026)
    lexicon = enable1().warm()
    with ENABLE_TEXT.open() as f:
        plain = set(f.read().split())
    words = list(lexicon.words())
    present = rng.sample(words, 5000)
    absent = ["".join(rng.choice(BAG) for _ in range(len(w))) for w in present]
    probes = present + absent
    rng.shuffle(probes)

    print(f"\nIn-process queries (ENABLE, {len(lexicon):,} words)")
    row("", "parlor.lexicon", "baseline", "")

    def ours_in() -> None:
        for word in probes:
            _ = word in lexicon

    def plain_in() -> None:
        for word in probes:
            _ = word in plain

    row(
        "lookups/s (`word in lexicon`)",
        fmt_rate(rate(ours_in, len(probes))),
        fmt_rate(rate(plain_in, len(probes))),
        "baseline: plain set",
    )

    def ours_check() -> None:
        for word in probes:
            lexicon.check(word)

    row("lookups/s (`check`, normalised)", fmt_rate(rate(ours_check, len(probes))), "", "")

    batch = (probes * 2)[:10_000]
    upper = [f" {w.upper()} " for w in batch]
    ours_batch = rate(lambda: lexicon.check_many(batch), 1)
    ours_batch_messy = rate(lambda: lexicon.check_many(upper), 1)
    plain_batch = rate(lambda: [w in plain for w in batch], 1)
    row(
        "10,000-word check_many (ms)",
        f"{1e3 / ours_batch:.2f} ms",
        f"{1e3 / plain_batch:.2f} ms",
        "baseline: list comp over set",
    )
    row("  same, ' UPPER ' input (ms)", f"{1e3 / ours_batch_messy:.2f} ms", "", "")

    prefixes = [w[: rng.randint(1, len(w))] for w in present] + [w[:3] for w in absent]

    def ours_prefix() -> None:
        for p in prefixes:
            lexicon.has_prefix(p)

    def scan_prefix() -> None:
        for p in prefixes[:20]:
            any(w.startswith(p) for w in words)

    row(
        "has_prefix/s",
        fmt_rate(rate(ours_prefix, len(prefixes))),
        fmt_rate(rate(scan_prefix, 20)),
        "baseline: scan all words",
    )

    # Anagrams: 7-letter racks drawn from the bag, with 0, 1, 2 blanks.
    counted = [(w, Counter(w)) for w in words]

    def brute(rack: str) -> list[str]:
        held = Counter(rack.replace("?", ""))
        blanks = rack.count("?")
        out = []
        for word, letters in counted:
            if len(word) <= len(rack) and sum((letters - held).values()) <= blanks:
                out.append(word)
        return out

    n_brute = 3 if quick else 10
    for blanks in (0, 1, 2):
        racks = ["".join(rng.sample(BAG, 7)) + "?" * blanks for _ in range(200)]
        n = {0: 200, 1: 100, 2: 30}[blanks] // (4 if quick else 1)
        sample = racks[:n]
        results = sum(len(lexicon.anagrams(r, limit=MAX_LIMIT)) for r in sample) / len(sample)
        ours = rate(each(lambda r: lexicon.anagrams(r, limit=MAX_LIMIT), sample), len(sample))
        base = rate(each(brute, sample[:n_brute]), n_brute, seconds=0.1)
        first = sorted(brute(sample[0]), key=lambda w: (-len(w), w))[:MAX_LIMIT]
        assert first == lexicon.anagrams(sample[0], limit=MAX_LIMIT), sample[0]
        row(
            f"anagrams/s, 7 letters + {blanks} blank(s)",
            fmt_rate(ours),
            fmt_rate(base),
            f"brute-force scan; {results:,.0f} words/answer",
        )
    exact = ["".join(rng.sample(BAG, 7)) for _ in range(500)]
    row(
        "anagrams/s, 7 letters, use_all",
        fmt_rate(rate(lambda: [lexicon.anagrams(r, use_all=True) for r in exact], len(exact))),
        "",
        "",
    )

    # Patterns: fixed letters with '?' and '*'.
    patterns = []
    for word in rng.sample(words, 300):
        chars = [c if rng.random() < 0.5 else "?" for c in word]
        patterns.append("".join(chars))
    star_patterns = [w[:2] + "*" + w[-2:] for w in rng.sample(words, 100)] + [
        "*" + w[-3:] for w in rng.sample(words, 50)
    ]

    def brute_pattern(pattern: str) -> list[str]:
        regex = re.compile(pattern.replace("?", ".").replace("*", ".*"))
        return [w for w in words if regex.fullmatch(w)]

    for label, sample in (
        ("pattern/s, '?' only (c?t)", patterns),
        ("pattern/s, with '*'", star_patterns),
    ):
        assert lexicon.pattern(sample[0], limit=MAX_LIMIT) == brute_pattern(sample[0])[:MAX_LIMIT]
        ours = rate(each(lambda p: lexicon.pattern(p, limit=MAX_LIMIT), sample), len(sample))
        base = rate(each(brute_pattern, sample[:3]), 3, seconds=0.1)
        row(label, fmt_rate(ours), fmt_rate(base), "baseline: regex per word")

    if alternatives:
        alternatives_section(words, probes, prefixes, plain)


def alternatives_section(
    words: list[str], probes: list[str], prefixes: list[str], plain: set[str]
) -> None:
    import tracemalloc
    from bisect import bisect_left

    print("\nAlternatives considered (for the README)")
    ordered = tuple(words)

    def bisect_in() -> None:
        for w in probes:
            i = bisect_left(ordered, w)
            _ = i < len(ordered) and ordered[i] == w

    row("sorted tuple + bisect lookups/s", fmt_rate(rate(bisect_in, len(probes))))
    try:
        import marisa_trie

        trie = marisa_trie.Trie(words)

        def marisa_in() -> None:
            for w in probes:
                _ = w in trie

        def marisa_prefix() -> None:
            for p in prefixes:
                next(trie.iterkeys(p), None)

        row("marisa-trie lookups/s", fmt_rate(rate(marisa_in, len(probes))))
        row("marisa-trie has_prefix/s", fmt_rate(rate(marisa_prefix, len(prefixes))))
    except ImportError:
        row("marisa-trie", "not installed")
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    signature_prefixes = {
        sig[:i] for sig in {"".join(sorted(w)) for w in words} for i in range(1, len(sig) + 1)
    }
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    row(
        "set of all signature prefixes",
        f"{size / 1e6:.1f} MB",
        "",
        f"{len(signature_prefixes):,} strings",
    )
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    word_prefixes = {w[:i] for w in words for i in range(1, len(w) + 1)}
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    row("set of all word prefixes", f"{size / 1e6:.1f} MB", "", f"{len(word_prefixes):,} strings")
    del plain


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, for a smoke run")
    parser.add_argument(
        "--alternatives", action="store_true", help="also measure the options not taken"
    )
    args = parser.parse_args()
    # The baselines read the plain, uncompressed list: unpack the packaged one once.
    packed = files("parlor.lexicon").joinpath("data", "enable1.txt.gz").read_bytes()
    ENABLE_TEXT.write_bytes(gzip.decompress(packed))
    print(f"parlor.lexicon benchmark, Python {sys.version.split()[0]}")
    start_up_and_memory(1 if args.quick else 5, args.alternatives)
    queries(args.quick, args.alternatives)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
