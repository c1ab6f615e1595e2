#!/usr/bin/env bash
# sys:claims(thing): a property written in Lua sees, at run time, what the
# host's other properties claim about a path (and below it), a package or
# a word: their kind, key, value, description and arguments, in run
# order; only the pick_os alternative for the host's system; a secret's
# value left out; a container's properties not the host's.  On a
# connect.dir tree under the test's scratch directory.
set -u
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

T="$TMP/tree"
mkdir -p "$T/etc"
cat >"$TMP/site.lua" <<EOF
local function lister(thing)
  return property {
    desc = "claims of " .. thing,
    check = function(sys)
      for _, c in ipairs(sys:claims(thing)) do
        local a = c.args and (c.args.path or c.args.packages or c.args.name) or "-"
        sys:note(string.format("CLAIM %s %s %s [%s] %s", c.kind, c.key,
                               c.value and ("<" .. c.value:gsub("\n", "|") .. ">") or "nil", c.desc,
                               type(a) == "table" and table.concat(a, ",") or tostring(a)))
      end
      return true
    end,
    apply = function() end,
  }
end
host "tree" {
  connect.dir "$T",
  os.debian("bookworm", "amd64"),
  file.directory "/etc/demo",
  file.has_content("/etc/demo/a.conf", "a\n"),
  file.has_content("/etc/demo/key", "s3cr3t\n", { secret = true }),
  file.has_content("/etc/elsewhere", "no\n"),
  pick_os(pkg.installed { "tmux" }, apt.installed { "tmux" }),
  lister "/etc/demo",
  lister "tmux",
  property {
    desc = "a bad thing",
    check = function(sys) sys:claims("") return true end,
    apply = function() end,
  },
}
EOF
run_prop "$TMP/lint.out" lint "$TMP/site.lua"
same "the site lints" "$rc" 0
run_prop "$TMP/run.out" run --dry-run "$TMP/site.lua"
grep CLAIM "$TMP/run.out" | sed 's/^ *tree *//' >"$TMP/claims"
cat >"$TMP/want" <<'EOF'
CLAIM file.directory /etc/demo nil [directory /etc/demo exists] /etc/demo
CLAIM file.content /etc/demo/a.conf <a|> [file /etc/demo/a.conf has content] /etc/demo/a.conf
CLAIM file.content /etc/demo/key nil [file /etc/demo/key has content (secret)] /etc/demo/key
CLAIM package.installed tmux nil [apt installed tmux] tmux
EOF
check "the path's claims and the package's, in run order, a secret's value left out" \
  diff -u "$TMP/want" "$TMP/claims"
check "a thing that is no thing fails its property, saying why" \
  grep -q 'sys:claims: "" is not a path' "$TMP/run.out"
same "a path outside the one asked for is not listed" "$(grep -c elsewhere "$TMP/claims")" 0
finish
