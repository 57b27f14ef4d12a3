#!/bin/bash
# Issue 39's Show figures for a checkout (default: this one): bench/runtime_figures.sh [DIR]
cd "${1:-$(dirname "$0")/..}"
G=libs/gamehost/src/parlor/gamehost
echo "per-game python outside rules pkg (non-blank lines; wc -l in parens):"
for d in services/connect4x4 services/upwords services/takefour; do
  f=$(find $d -name '*.py'); echo "  $d: $(cat $f | grep -cv '^\s*$') ($(cat $f | wc -l))"; done
f=$(find examples/tictactoe -name '*.py' ! -name rules.py ! -name hatch_build.py ! -path '*/rules/*'); echo "  tictactoe (non-rules): $(cat $f | grep -cv '^\s*$') ($(cat $f | wc -l))"
echo "GameService subclasses: $(grep -rEn '^class \w+\((\w+\.)?(GameService|WordGameService)\b' libs services examples --include=*.py | wc -l)"
echo "generic adapter (service.py) lines: $(cat $(find $G -name service.py) | wc -l)"
echo "host.py lines: $(cat $(find $G -name host.py) | wc -l)"
echo "getattr in pipeline.py: $(grep -c 'getattr(' $(find $G -name pipeline.py))  host.py: $(grep -c 'getattr(' $(find $G -name host.py))  all gamehost: $(grep -rc 'getattr(' $G --include=*.py | awk -F: '{s+=$2} END {print s}')"
echo "gamehost modules over 400 lines:"; find $G -name '*.py' | xargs wc -l | awk '$1>400 && $2!="total" {print "  "$0}'
echo "gamehost modules: $(find $G -name '*.py' | wc -l), lines: $(cat $(find $G -name '*.py') | wc -l)"
