-- prop.show: the property tree as prop show prints it.
local T = require "check"
local show = prop_module "show"

-- at(): "(FILE:N)", this script as prop names it and N the line at() is
-- called on.
local function at()
   local _, where = pcall(error, "", 3)
   return "(" .. where:match("^(.-:%d+):") .. ")"
end
local function lines(text)
   local t = {}
   for l in text:gmatch("[^\n]*\n") do t[#t + 1] = l:sub(1, -2) end
   return t
end

-- a leaf and its claims
local p, o = file.has_content("/etc/x", "a\"b\n"), at()
T.eq(lines(show.property(p)), {
   "file /etc/x has content : UnixLike  " .. o,
   '    claims file.content /etc/x "a\\"b\\n"',
}, "a leaf: its type, origin and claim, quoted")
T.eq(lines(show.property(file.has_content("/etc/y", string.rep("y", 81))))[2],
     "    claims file.content /etc/y (81 bytes)", "a long value: its length")

-- combinators name their parts
p, o = apt.installed("a"):requires(apt.removed("b")), at()
T.eq(lines(show.property(p)), {
   "[requires] apt installed a : DebianLike, revertable  " .. o,
   "├── apt installed a : DebianLike, revertable  " .. o,
   "│       claims package.installed a",
   "└── requires: apt removed b : DebianLike, revertable  " .. o,
   "        claims package.removed b",
}, "requires")
T.err(show.property(apt.installed("a"):on_change(apt.removed("b"))), "└── on change: apt removed b",
      "on_change")
T.err(show.property(apt.installed("a"):fallback(apt.removed("b"))), "└── if it fails: apt removed b",
      "fallback")
T.err(show.property(apt.installed("a"):before(apt.removed("b"))), "└── then: apt removed b", "before")
p, o = pick_os(apt.installed "a", pkg.installed "a"), at()
local got = lines(show.property(p))
T.eq({ got[2], got[4] }, { "├── if DebianLike: apt installed a : DebianLike, revertable  " .. o,
                           "└── if FreeBSD: pkg installed a : FreeBSD, revertable  " .. o },
     "pick_os: each alternative by its targets")
p, o = revert(apt.installed "c"), at()
got = lines(show.property(p))
T.eq({ got[1], got[2] }, { "[revert] apt removed c : DebianLike, revertable  " .. o,
                           "└── runs: apt removed c : DebianLike  " .. o }, "revert: what runs")

-- a host
local h, oh = host "web" { os.debian("bookworm", "amd64"), apt.installed "nginx" }, at()
T.eq(lines(show.host(h)), {
   "host web : debian  " .. oh,
   "├── os.debian \"bookworm\" amd64 : UnixLike, info  " .. oh,
   "└── apt installed nginx : DebianLike, revertable  " .. oh,
   "        claims package.installed nginx",
}, "host: its header and properties")
local bare, ob = host "bare" {}, at()
T.eq(lines(show.host(bare)), { "host bare : no OS declared  " .. ob }, "host: no OS declared")
T.eq(show.site({ h, bare }), show.host(h) .. "\n" .. show.host(bare), "site: hosts one after the other")

-- a container no host takes
local c, oc = chroot.debootstrapped("/srv/c", os.debian("bookworm", "amd64"), { file.directory "/x" }), at()
got = lines(show.unattached({ c }))
T.eq(got[1], "container c (chroot, put on no host) : debian  " .. oc, "unattached: its header")
T.eq(got[#got - 1], "└── directory /x exists : UnixLike  " .. oc, "unattached: its properties")
T.eq(show.unattached({}), "", "unattached: none")

T.done()
