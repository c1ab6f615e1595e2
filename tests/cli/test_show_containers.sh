#!/usr/bin/env bash
# Containers where users look: prop show nests each container under the
# property that puts it on its host, and lists one put on no host last as
# such; prop graph draws each container as a cluster inside its parent's,
# with an edge from that property to it, and Graphviz takes it as it is.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$TMP"
# Build chroots on one host (the site examples/containers.lua began as).
cp "$PROP_SOURCE_DIR/tests/sites/valid/build_chroots.lua" containers.lua

# A site with a container in a container, and one that no host takes.
cat >nested.lua <<'SITE'
local lost = chroot.debootstrapped("/srv/chroot/lost", os.debian("bookworm", "amd64"), {
  file.has_content("/etc/motd", "lost\n"),
})
local inner = chroot.debootstrapped("/srv/inner", os.debian("bookworm", "amd64"), {
  file.has_content("/etc/motd", "inner\n"),
})
local outer = chroot.debootstrapped("/srv/chroot/outer", os.debian("bookworm", "amd64"), {
  chroot.provisioned(inner),
  file.has_content("/etc/motd", "outer\n"),
})
host "box" {
  os.debian("bookworm", "amd64"),
  chroot.provisioned(outer),
}
SITE

# want NAME FILE REGEX... : each REGEX matches a line of FILE.
want() {
  local name="$1" file="$2" re
  shift 2
  for re in "$@"; do
    if ! grep -Eq -- "$re" "$file"; then
      fail "$name" "no line matching: $re" "$file"
      return
    fi
  done
  pass
}
# after NAME FILE FIRST NEXT : the line after the one matching FIRST
# (a fixed string) is NEXT (a fixed string, the whole line).
after() {
  local got
  got="$(grep -F -A1 -- "$3" "$2" | sed -n 2p || true)"
  if [[ "$got" == "$4" ]]; then
    pass
  else
    fail "$1" "after \"$3\": \"$got\", want \"$4\"" "$2"
  fi
}

# ---- prop show ----

run_prop show.out show containers.lua
if [[ $rc == 0 && "$(grep -c '^host ' show.out)" == 1 ]] && grep -q '^host build.example.com : debian' show.out; then
  pass
else
  fail "show: one host" "exit $rc, or containers shown as hosts of their own" show.out
fi
after "show: a container under the property that puts it there" show.out \
  'claims file.owned /srv/chroot/bookworm.prop-new "chroot bookworm"' \
  '│   └── container bookworm (chroot) : debian  (containers.lua:13)'
after "show: the container's own tree below it" show.out \
  '│   └── container bookworm (chroot) : debian  (containers.lua:13)' \
  '│       ├── os.debian "bookworm" amd64 : UnixLike, info  (containers.lua:13)'
want "show: the second container, its claims indented" show.out \
  '^│   └── container sid \(chroot\) : debian  \(containers\.lua:13\)$' \
  '^│       │       claims file\.content /etc/motd "build chroot for sid\\n"$'
want "show: a reverted container is shown removed, without its tree" show.out \
  '^        └── container bullseye \(chroot, removed\) : debian  \(containers\.lua:13\)$'
if ! grep -q 'build chroot for bullseye' show.out && ! grep -q '^host bullseye' show.out; then
  pass
else
  fail "show: removed container" "its properties or a host bullseye shown" show.out
fi

run_prop one.out show containers.lua build.example.com/sid
if [[ $rc == 0 ]] && [[ "$(head -1 one.out)" == 'container build.example.com/sid (chroot) : debian  (containers.lua:13)' ]] &&
   grep -q 'build chroot for sid' one.out && ! grep -q 'bookworm' one.out; then
  pass
else
  fail "show HOST/CONTAINER" "exit $rc, or not that container alone" one.out
fi

run_prop nested.out show nested.lua
after "show: a container in a container" nested.out \
  '        │       claims file.owned /srv/inner.prop-new "chroot inner"' \
  '        │   └── container inner (chroot) : debian  (nested.lua:4)'
if [[ $rc == 0 && "$(tail -5 nested.out | head -1)" == 'container lost (chroot, put on no host) : debian  (nested.lua:1)' ]] &&
   [[ "$(grep -c '^host ' nested.out)" == 1 ]]; then
  pass
else
  fail "show: a container on no host" "exit $rc, or not listed last as a container put on no host" nested.out
fi

# ---- prop graph ----

have_dot=1
command -v dot >/dev/null 2>&1 || have_dot=0
# graph_ok NAME FILE: dot renders it without a word of warning (an edge
# into a cluster its tail is inside of, or a bad lhead, is warned about).
graph_ok() {
  if ((!have_dot)); then
    part_missing graphviz "dot is not installed; $1 not rendered"
    return
  fi
  if dot -Tsvg "$2" >"$2.svg" 2>"$2.err" && [[ ! -s "$2.err" ]] && grep -q '<svg' "$2.svg"; then
    pass
  else
    fail "$1" "dot -Tsvg rejected it or warned" "$2.err"
  fi
}

# depth FILE LABEL : how many clusters are open around the cluster whose
# label starts with LABEL (1: a top-level cluster).
depth() {
  awk -v want="$2" '
    /subgraph cluster_[0-9]+ \{$/ { d++; open = 1; next }
    open && index($0, "label=\"" want) { print d; exit }
    { open = 0 }
    /^ *\}$/ { d-- }' "$1"
}

run_prop g.dot graph containers.lua
if [[ $rc == 0 ]]; then pass; else fail "graph" "exit $rc" g.dot; fi
graph_ok "graph of containers.lua" g.dot
if [[ "$(depth g.dot 'host build.example.com ')" == 1 && "$(depth g.dot 'container bookworm (chroot)')" == 2 &&
      "$(depth g.dot 'container sid (chroot)')" == 2 ]] && ! grep -q 'label="container bullseye' g.dot; then
  pass
else
  fail "graph: nesting" "containers not clusters inside their host's" g.dot
fi
# The edge from "chroot /srv/chroot/bookworm provisioned" to its cluster.
node="$(grep -oE '^ *h[0-9]+_[0-9]+ \[label="chroot /srv/chroot/bookworm provisioned' g.dot | grep -oE 'h[0-9]+_[0-9]+' || true)"
cluster="$(grep -B1 'label="container bookworm (chroot)' g.dot | grep -oE 'cluster_[0-9]+' || true)"
if [[ -n "$node" && -n "$cluster" ]] &&
   grep -Eq "^ *$node -> h${cluster#cluster_}_0 \\[lhead=$cluster, label=\"container\"" g.dot; then
  pass
else
  fail "graph: attaching edge" "no edge from \"$node\" to $cluster with lhead" g.dot
fi

run_prop n.dot graph nested.lua
graph_ok "graph of nested containers" n.dot
if [[ $rc == 0 && "$(depth n.dot 'container inner (chroot)')" == 3 &&
      "$(depth n.dot 'container lost (chroot, put on no host)')" == 1 ]]; then
  pass
else
  fail "graph: a container in a container, one on no host" "exit $rc, or wrong nesting" n.dot
fi

run_prop one.dot graph containers.lua build.example.com/sid
graph_ok "graph of one container" one.dot
if [[ $rc == 0 && "$(grep -c 'subgraph cluster_' one.dot)" == 1 ]] &&
   grep -q 'label="container build.example.com/sid (chroot) : ' one.dot; then
  pass
else
  fail "graph HOST/CONTAINER" "exit $rc, or not that container alone" one.dot
fi

finish
