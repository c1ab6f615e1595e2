#!/usr/bin/env bash
# The bash completion (bindings/prop.bash-completion): subcommands, each
# command's options, format names, diagnostic codes and host names, by
# calling its completion function as bash would on Tab.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# shellcheck source=../../bindings/prop.bash-completion
source "$PROP_SOURCE_DIR/bindings/prop.bash-completion"

cd "$PROP_SOURCE_DIR"

# expect NAME "WANT" WORD... : the candidates, space-separated and sorted.
expect_words() {
  local name="$1" want="$2" got
  shift 2
  got="$(complete_line "$@")"
  if [[ "$got" == "$want" ]]; then
    pass
  else
    printf 'want: %s\ngot:  %s\n' "$want" "$got" >"$TMP/out"
    fail "completion: $name" "prop $* <Tab>" "$TMP/out"
  fi
}

expect_words "subcommands" "claims explain graph help lint pull repl report run secret show status verify version" ""
expect_words "a subcommand prefix" "graph" "gr"
expect_words "help COMMAND" "graph" help gr
expect_words "lint options" "--format= --help --max-cpu --max-instructions --max-memory --stats --werror" lint --
expect_words "format names" "github json sarif text" lint --format=
expect_words "format names after --format" "sarif" lint --format s
expect_words "an option's value is not completed" "" show --max-memory ""
expect_words "codes for explain" "P010 P011 P012 P013 P014 P015 P016 P017" explain P01
expect_words "site files" "examples/site.lua" show examples/si
expect_words "host names" "files.example.com foo.example.com" show examples/site.lua f
expect_words "host names after options" "www.example.com" graph --max-instructions 100000000 examples/site.lua w
expect_words "run --twice" "--twice" run examples/site.lua --tw
expect_words "repl options" "--max-cpu --max-instructions --max-memory" repl --max
expect_words "--max-cpu's value is not completed" "" run --max-cpu ""
expect_words "run --report" "--report" run examples/site.lua --rep
mkdir -p "$TMP/rep/dir"
touch "$TMP/rep/last.json" "$TMP/rep/site.lua"
expect_words "--report offers directories and JSON files" "$TMP/rep/dir $TMP/rep/last.json" \
  run examples/site.lua --report "$TMP/rep/"
expect_words "host names after --report FILE" "www.example.com" \
  run examples/site.lua --report r.json w
expect_words "host names after --max-cpu" "www.example.com" show --max-cpu 10 examples/site.lua w
expect_words "claims: kinds of thing" "package: port:" claims examples/site.lua p
expect_words "claims options" "--json" claims --js
expect_words "pull options" "--site --state-dir" pull --s
expect_words "pull: --keyring takes a file" "bindings/prop.bash-completion" pull repo --keyring bindings/prop.bash
expect_words "pull: the repository is a directory" "examples" pull exam
expect_words "status: host names" "files.example.com foo.example.com" status examples/site.lua f
expect_words "status --html" "--html" status examples/site.lua --ht
touch "$TMP/rep/page.html"
expect_words "--html offers directories and HTML files" "$TMP/rep/dir $TMP/rep/page.html" \
  status examples/site.lua --html "$TMP/rep/"
expect_words "report options" "--help --html --title" report --
expect_words "report: every word a report" "$TMP/rep/dir $TMP/rep/last.json" \
  report "$TMP/rep/last.json" "$TMP/rep/"
expect_words "report: the page" "$TMP/rep/dir $TMP/rep/page.html" report "$TMP/rep/last.json" --html "$TMP/rep/"
expect_words "verify: host names" "files.example.com foo.example.com" verify examples/site.lua f
expect_words "verify options" "--json" verify examples/site.lua --js
expect_words "verify --prometheus" "--prometheus" verify examples/site.lua --prom
expect_words "verify --prometheus takes a file" "bindings/prop.bash-completion" verify examples/site.lua --prometheus bindings/prop.bash
expect_words "secret: subcommands" "list recipients rm set" secret ""
expect_words "secret: options" "--help --host --json" secret set --
expect_words "secret: site files" "examples/site.lua" secret list examples/si
expect_words "secret: hosts after --host" "files.example.com foo.example.com" secret set examples/site.lua db --host f
expect_words "secret: recipients add|rm" "add rm" secret recipients examples/site.lua ""
expect_words "secret: names from the store" "db_password" secret rm examples/site.lua ""

finish
