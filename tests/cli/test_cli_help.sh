#!/usr/bin/env bash
# Every sub-command's --help shows the default of every option that takes a value (CLI11's
# "TEXT=value" or "default" in the description), and --config's help names what is read without
# one: the built-in defaults, not a file. Usage: test_cli_help.sh BINARY
set -u
bin="$1"
source "$(dirname "$0")/harness.sh"

subcommands=$("$bin" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
[[ -n $subcommands ]] || { fail "no subcommands in --help"; exit 1; }
for sub in $subcommands; do
  help=$("$bin" "$sub" --help) || { fail "$sub --help exits $?"; continue; }
  # One block per option: its line ("  --name TYPE ...", "  -o,--output TYPE ...") and the
  # indented description lines under it. Options with a type take a value; flags have none.
  missing=$(python3 - "$help" <<'PY'
import re, sys
blocks, current = [], None
section = None
for line in sys.argv[1].splitlines():
    if re.match(r"^\S.*:$", line):
        section = line
        continue
    if section == "Options:" and re.match(r"^  -", line):
        current = [line]
        blocks.append(current)
    elif current is not None and re.match(r"^ {4,}\S", line):
        current.append(line)
    else:
        current = None
for block in blocks:
    # "  --name TYPE   description": the type is what follows the name before two spaces (or the
    # line's end when the description wraps to the next line); a flag has none.
    m = re.match(r"^  (\S+)((?: \S+)*?)(?:\s{2,}|\s*$)", block[0])
    name, value_type = m.group(1), m.group(2).strip()
    takes_value = bool(value_type) and not value_type.startswith("Excludes:")
    text = " ".join(block)
    if takes_value and "REQUIRED" not in text and "=" not in value_type and "default" not in text:
        print(name)
PY
)
  if [[ -z $missing ]]; then pass
  else fail "$sub --help shows no default for: $(echo $missing)"; fi
done

for sub in sweep model; do
  if "$bin" "$sub" --help | tr -s ' \n' ' ' | grep -q -- "--config TEXT JSON sweep config.*(default: none, the built-in defaults"; then
    pass
  else fail "$sub --help: --config does not say that without it the built-in defaults are read"; fi
done

# sweep sweeps comma lists of the axes; model takes one value of each and its help says so.
if "$bin" sweep --help | tr -s ' \n' ' ' | grep -qE -- "--batch B\[,B\.\.\.\]\|B\.\.B\[:STEP\] Batch size B \(default 1; a comma list sweeps.*; or a range: 1\.\.64 powers of two"; then
  pass
else fail "sweep --help: --batch does not offer a comma list and a range"; fi
if "$bin" model --help | grep -qE -- "--batch B +Batch size B \(default 1; one value: lists are for sweep\)"; then
  pass
else fail "model --help: --batch offers a list that model refuses"; fi

finish "cli_help"
