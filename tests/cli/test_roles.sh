#!/usr/bin/env bash
# Roles that know their host: a function in a host's list is called with
# the host (name, os, suite, arch, info, properties, from the list's other entries)
# while the site is evaluated, and the properties it returns take its
# place, in order, where the checker sees them: a role choosing by release
# is shown per host, a Debian recipe it returns for a FreeBSD host is
# P002 at the role's line; a role returning nothing, reading a field the
# host has not, or writing to it is an error naming the site's line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$TMP"
cat >roles.lua <<'EOF'
local function time_sync(h)
  if h.suite == "bookworm" then
    return { apt.installed { "systemd-timesyncd" },
             file.has_content("/etc/motd", h.name .. " " .. h.os .. " " .. h.suite .. " " .. h.arch .. "\n") }
  end
  return apt.installed { "ntp" }
end
local function by_address(h)
  return file.has_content("/etc/address", h.info.ipv4[1] .. "\n")
end
host "new" { os.debian("bookworm", "amd64"), time_sync, ipv4 "192.0.2.1", by_address }
host "old" { os.debian("bullseye", "arm64"), time_sync, file.directory "/srv" }
host("empty", { os.debian("bookworm", "amd64"), function() return {} end })
EOF

run_prop show.out show roles.lua
if [[ $rc == 0 ]]; then pass; else fail "show: exit $rc" "" show.out; fi
# Each host's role chose by its own release, in the role's place.
got="$(sed -n '/^host new/,/^$/p' show.out | grep -E '^(├|└)' | sed 's/ :.*//')"
want=$'├── os.debian "bookworm" amd64\n├── apt installed systemd-timesyncd\n├── file /etc/motd has content\n├── ipv4 192.0.2.1\n└── file /etc/address has content'
if [[ "$got" == "$want" ]]; then pass; else fail "new: the role's properties in its place" "got: $got" show.out; fi
if grep -qF 'claims file.content /etc/motd "new debian bookworm amd64\n"' show.out; then pass; else
  fail "new: the role saw name, os, suite and arch" "" show.out; fi
if grep -qF 'claims file.content /etc/address "192.0.2.1\n"' show.out; then pass; else
  fail "new: a role after ipv4 reads the host's info" "" show.out; fi
got="$(sed -n '/^host old/,/^$/p' show.out | grep -E '^(├|└)' | sed 's/ :.*//')"
want=$'├── os.debian "bullseye" arm64\n├── apt installed ntp\n└── directory /srv exists'
if [[ "$got" == "$want" ]]; then pass; else fail "old: the other release's choice" "got: $got" show.out; fi
if grep -q '(roles.lua:6)' show.out && grep -q '^host empty' show.out; then pass; else
  fail "the role's properties carry the role's lines; an empty list adds none" "" show.out; fi

run_prop lint.out lint roles.lua
if [[ $rc == 0 && ! -s lint.out ]]; then pass; else fail "lint: clean" "exit $rc" lint.out; fi

# A role returning a Debian recipe for a FreeBSD host: P002 at the role's line.
cat >p002.lua <<'EOF'
local function base(h)
  return apt.installed { "ntp" }
end
host "bsd" { os.freebsd("14.1-RELEASE", "amd64"), base }
EOF
run_prop p002.out lint p002.lua
if [[ $rc == 2 ]] && grep -q '^p002.lua:2: error\[P002\]: "apt installed ntp" runs only on DebianLike, but host "bsd" is freebsd' p002.out; then
  pass
else
  fail "P002 from a role" "exit $rc" p002.out
fi

# Mistakes: each stops the evaluation with the site's line.
printf 'host "a" { os.debian("bookworm", "amd64"), function(h) end }\n' >nothing.lua
run_prop nothing.out lint nothing.lua
if [[ $rc == 2 ]] && grep -q '^nothing.lua:1: error\[P000\]: host "a": the role at entry 2 returned nothing' nothing.out; then
  pass
else
  fail "a role returning nothing" "exit $rc" nothing.out
fi
printf 'host "a" { os.debian("bookworm", "amd64"),\n  function(h) return h.release end }\n' >field.lua
run_prop field.out lint field.lua
if [[ $rc == 2 ]] && grep -q '^field.lua:2: error\[P000\]: a host given to a role has no field "release" (it has name, os, suite, arch, info, properties)' field.out; then
  pass
else
  fail "an unknown field" "exit $rc" field.out
fi
printf 'host "a" { os.debian("bookworm", "amd64"),\n  function(h) h.suite = "sid"; return {} end }\n' >write.lua
run_prop write.out lint write.lua
if [[ $rc == 2 ]] && grep -q '^write.lua:2: error\[P000\]: the host given to a role is read-only' write.out; then
  pass
else
  fail "writing to the host" "exit $rc" write.out
fi
# A host declared without an os: the role sees none.
printf 'host "a" { function(h) return file.has_content("/etc/x", tostring(h.os) .. "\\n") end }\n' >noos.lua
run_prop noos.out show noos.lua
if [[ $rc == 0 ]] && grep -qF 'claims file.content /etc/x "nil\n"' noos.out; then pass; else
  fail "no os declared: h.os is nil" "exit $rc" noos.out; fi

finish
