# Shared scaffolding of the CLI tests in this folder, sourced after `set -u` and after `bin` (the
# rooflinectl binary) is set: a scratch directory `work` removed at exit, the pass and failure
# counts, the checks every test makes of a run, and the closing summary line.

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

# fail MESSAGE...: counts a failed check and prints it.
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# pass: counts a passed check.
pass() {
  passes=$((passes + 1))
}

# one_error_line FILE: true when FILE is exactly one line starting with "error: ".
one_error_line() {
  [[ $(wc -l <"$1") -eq 1 ]] && grep -q '^error: ' "$1"
}

# refused_run WANT PATTERN ARGS...: runs "$bin" ARGS with stdout and stderr in $work/stdout and
# $work/stderr; true when it exits WANT with nothing on stdout and one "error: " line on stderr
# containing PATTERN (literal). Otherwise counts a failure naming the command and returns 1; the
# caller adds its own checks (no file written) and counts the pass.
refused_run() {
  local want="$1" pattern="$2"
  shift 2
  "$bin" "$@" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  if [[ $got -ne $want ]]; then
    fail "rooflinectl $* -> exit $got (want $want): $(head -c 300 "$work/stderr")"
  elif ! grep -qF -- "$pattern" "$work/stderr"; then
    fail "rooflinectl $* -> stderr does not name '$pattern': $(head -c 400 "$work/stderr")"
  elif ! one_error_line "$work/stderr"; then
    fail "rooflinectl $* -> want one 'error:' line: $(head -c 400 "$work/stderr")"
  elif [[ -s "$work/stdout" ]]; then
    fail "rooflinectl $* -> wrote to stdout: $(head -c 200 "$work/stdout")"
  else
    return 0
  fi
  return 1
}

# check WANT STDOUT_PATTERN STDERR_PATTERN ARGS...: runs "$bin" ARGS and counts a pass when it
# exits WANT and stdout and stderr match their patterns (grep's basic regular expressions; ""
# matches anything); an exit 2 must also be one "error: " line.
check() {
  local want="$1" out_pattern="$2" err_pattern="$3"
  shift 3
  "$bin" "$@" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  if [[ $got -ne $want ]] ||
     { [[ -n $out_pattern ]] && ! grep -q -- "$out_pattern" "$work/stdout"; } ||
     { [[ -n $err_pattern ]] && ! grep -q -- "$err_pattern" "$work/stderr"; } ||
     { [[ $want -eq 2 ]] && ! one_error_line "$work/stderr"; }; then
    fail "rooflinectl $* -> exit $got (want $want)
  stdout: $(head -c 400 "$work/stdout")
  stderr: $(head -c 400 "$work/stderr")"
  else
    pass
  fi
}

# python_check NAME FILE PYTHON [ARGS...]: parses FILE as JSON into `doc` and runs the PYTHON
# statements, which assert; ARGS reach them as sys.argv[1:]. Counts a pass or a failure.
python_check() {
  local name="$1" file="$2" code="$3"
  shift 3
  if RFL_CHECKED_JSON="$file" python3 -c "import json, os, sys
doc = json.load(open(os.environ['RFL_CHECKED_JSON']))
$code" "$@" 2>"$work/py.err"; then
    pass
  else
    fail "$name: $(tail -c 400 "$work/py.err")"
  fi
}

# skip_without_jsonschema NAME: when python3-jsonschema is not importable, ends the test NAME
# here: its summary line, then exit 77 (skipped), or 1 when a check so far failed.
skip_without_jsonschema() {
  python3 -c "import jsonschema" 2>/dev/null && return 0
  finish "$1" "python3-jsonschema not importable: schema checks skipped" || exit 1
  exit 77
}

# schema_holds NAME FILE SCHEMA: FILE holds the JSON Schema (draft 2020-12) in SCHEMA, itself a
# valid schema; a failure lists the first five errors with their paths. Needs python3-jsonschema.
schema_holds() {
  python_check "$1 holds" "$2" '
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors[:5])
' "$3"
}

# finish NAME [EXTRA]: prints "NAME: P passed, F failed[, EXTRA]"; its status (the script's last)
# is 0 only without failures.
finish() {
  echo "$1: $passes passed, $failures failed${2:+, $2}"
  [[ $failures -eq 0 ]]
}
