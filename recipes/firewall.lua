-- prop.firewall: the host's packet filter, with nftables, on Debian and
-- Ubuntu.
--
-- The ruleset is written to /etc/nftables.conf (which nftables.service
-- loads at boot) as one table, "inet prop", with an input chain that
-- drops what it does not accept.  Only that table is prop's: the file
-- replaces it as a whole when loaded, and leaves every other table alone
-- (Docker's, libvirt's); only traffic to the host itself is filtered,
-- not what is forwarded to containers.  A ruleset is checked with nft -c
-- before it is written, and loaded with nft -f once written.  When prop
-- reaches the host over SSH, the port it is connected to is always
-- accepted: a run never locks itself out.
--
-- Every role of a host may add ports with firewall.allow: the host's one
-- firewall.nftables (or open_declared) finds them with sys:claims and
-- puts them in the ruleset; each firewall.allow, run before or after it,
-- makes the same ruleset.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local firewall = {}

local fmt = string.format
local concat = table.concat

local PATH = "/etc/nftables.conf"
local TABLE = { "inet", "prop" }

local HEADER = [[
#!/usr/sbin/nft -f
# Written by prop (%s): the table "inet prop" is this
# host's firewall.  Loading this file replaces that table as a whole and
# leaves every other table alone.  Edits here are lost at the next run.

]]

local REVERTED = [[
#!/usr/sbin/nft -f
# Written by prop (firewall.nftables reverted): prop's table "inet prop"
# is removed when this file is loaded; no other table is touched.

table inet prop
delete table inet prop
]]

local impl = { nftables = {}, reverted = {}, allow = {} }

-- sys.cache key: the ruleset text that firewall.nftables (or a
-- firewall.allow for it) made true in this run, checked with nft -c and
-- enabled at boot.
local ENSURED = "firewall.ensured"

-- The nft rule accepting r ({ port =, proto =, from = }), one line.
local function rule_line(r)
   if r.from then
      return fmt("\t\t%s saddr %s %s dport %d accept\n", r.from:find(":") and "ip6" or "ip",
                 r.from, r.proto, r.port)
   end
   return fmt("\t\t%s dport %d accept\n", r.proto, r.port)
end

-- The rules of the ruleset: a's own allow, then those of every
-- firewall.allow of the host (found with sys:claims), in that order.
local function all_allow(sys, a)
   local out = {}
   for _, r in ipairs(a.allow) do out[#out + 1] = r end
   for _, c in ipairs(sys:claims(PATH)) do
      if c.kind == "file.fragment" and c.key == PATH then
         if type(c.args) ~= "table" or type(c.args.rules) ~= "table" then
            R.fail("%s: %s is the firewall's ruleset: \"%s\" adds to it, but only "
                   .. "firewall.allow may", a.recipe, PATH, tostring(c.desc))
         end
         for _, r in ipairs(c.args.rules) do out[#out + 1] = r end
      end
   end
   return out
end

-- Why the ruleset is not loaded on this target, or nil when it has a
-- network of its own: a chroot and a directory tree share the network of
-- the machine running prop, whose firewall nft -f would change.
local function network_not_own(sys)
   if R.is_dir_tree(sys) then
      return "a directory tree shares the network of the machine running prop"
   end
   if sys.container == "chroot" then return "a chroot shares this machine's network" end
   return nil
end

-- The port of prop's own SSH connection to the target, or nil.
local function ssh_port(sys)
   local t = sys.transport
   if type(t) ~= "string" or t:sub(1, 4) ~= "ssh:" then return nil end
   return tonumber(t:match(":(%d+)$"))
end

local function set(list)
   if #list == 1 then return tostring(list[1]) end
   return "{ " .. concat(list, ", ") .. " }"
end

-- The text of the ruleset for a host whose declared ports are declared
-- and whose SSH connection (if any) is on port ssh.
local function ruleset(a, allow, declared, ssh)
   local out = { fmt(HEADER, a.recipe) }
   local function add(...) out[#out + 1] = fmt(...) end
   add("table inet prop\ndelete table inet prop\n\n")
   add("table inet prop {\n\tchain input {\n")
   add("\t\ttype filter hook input priority filter; policy drop;\n")
   add("\t\tct state established,related accept\n")
   add("\t\tct state invalid drop\n")
   add('\t\tiifname "lo" accept\n')
   if a.ping then
      add("\t\tmeta l4proto { icmp, ipv6-icmp } accept\n")
   else
      add("\t\ticmp type { destination-unreachable, time-exceeded, parameter-problem } accept\n")
      add("\t\ticmpv6 type { destination-unreachable, packet-too-big, time-exceeded, "
          .. "parameter-problem, nd-router-advert, nd-neighbor-solicit, nd-neighbor-advert } "
          .. "accept\n")
   end
   if ssh then
      add('\t\ttcp dport %d accept comment "SSH: prop\'s connection"\n', ssh)
   end
   local seen = {}
   for _, r in ipairs(allow) do
      local line = rule_line(r)
      if not seen[line] then
         seen[line] = true
         out[#out + 1] = line
      end
   end
   if declared and #declared > 0 then
      add('\t\ttcp dport %s accept comment "declared by the host\'s properties"\n', set(declared))
      add('\t\tudp dport %s accept comment "declared by the host\'s properties"\n', set(declared))
   end
   if a.policy == "reject" then
      add("\t\tmeta l4proto tcp reject with tcp reset\n")
      add("\t\treject with icmpx type admin-prohibited\n")
   end
   add("\t}\n}\n")
   return concat(out)
end

local function table_loaded(sys, what)
   local argv = { "nft", "list", "table", TABLE[1], TABLE[2] }
   return R.query(sys, what, argv).code == 0
end

-- The ruleset checked by nft -c, given on standard input.  Nil when it
-- passes, else what nft said.
local function nft_check(sys, what, text)
   local r = R.query(sys, what, { "nft", "-c", "-f", "/dev/stdin" }, { stdin = text })
   if r.code == 0 then return nil end
   local out = R.tail(r.stderr ~= "" and r.stderr or r.stdout, 8)
   if out:find("Operation not permitted", 1, true) then
      out = out .. "\n(nft needs CAP_NET_ADMIN in the target's network namespace: a Docker "
         .. "container has it only when run with --cap-add NET_ADMIN)"
   end
   return out
end

local function load(sys, what, why_not)
   if why_not then
      sys:note(fmt("%s: not loaded, %s; it is loaded when that system boots", PATH, why_not))
      return false
   end
   R.run(sys, what, { "nft", "-f", PATH })
   sys:note(sys.dry and "the ruleset would be loaded (nft -f " .. PATH .. ")"
            or "the ruleset was loaded (nft -f " .. PATH .. ")")
   return true
end

-- nftables.service loads the file at boot where systemd is the init.
local function enable_at_boot(sys, what)
   if R.init_system(sys) ~= "systemd" then return false end
   local r = R.query(sys, what, { "systemctl", "is-enabled", "nftables" })
   if r.code == 0 and (r.stdout:match("%S+") == "enabled") then return false end
   R.run(sys, what, { "systemctl", "enable", "nftables" })
   return true
end

function impl.nftables.ensure(sys, a)
   local what = a.recipe
   local ssh = ssh_port(sys)
   local text = ruleset(a, all_allow(sys, a), a.declared and sys.ports or nil, ssh)
   local old = sys:read(PATH)
   if R.is_dir_tree(sys) then
      -- Files only: nothing to install, check or load with.
      if old == text then return "ok" end
      sys:write(PATH, text, { mode = tonumber("0755", 8) })
      sys:note(fmt("%s written, not checked with nft -c nor loaded: a directory tree runs no "
                   .. "commands", PATH))
      return "changed"
   end
   local changed = R.apt_install(sys, what, { "nftables" })
   local why_not = network_not_own(sys)
   if changed and sys.dry then
      -- nft is not there yet to check the ruleset with.
      sys:note("the ruleset would be checked with nft -c once nftables is installed")
   else
      local err = nft_check(sys, what, text)
      if err then
         R.fail("%s: nft -c refused the ruleset, so %s was left as it was:\n%s", what, PATH, err)
      end
   end
   if old ~= text then
      sys:write(PATH, text, { mode = tonumber("0755", 8) })
      changed = true
      if ssh then sys:note(fmt("port %d (prop's SSH connection) is accepted", ssh)) end
      load(sys, what, why_not)
   elseif not why_not and not table_loaded(sys, what) then
      changed = load(sys, what, why_not) or changed
   end
   if enable_at_boot(sys, what) then changed = true end
   sys.cache[ENSURED] = text
   return changed and "changed" or "ok"
end

-- Probe ----------------------------------------------------------------

-- The accepted (proto, port, from) of the rules of listing, the text of
-- nft list chain inet prop input, as "tcp 22", "tcp 5432 from
-- 192.0.2.0/24"; and the chain's policy.
local function accepted(listing)
   local got = {}
   for l in listing:gmatch("[^\n]+") do
      l = l:gsub('%s*comment ".*"%s*$', ""):match("^%s*(.-)%s*$")
      local from, proto, ports = l:match("^ip6? saddr (%S+) (%a+) dport (.-) accept$")
      if not from then proto, ports = l:match("^(%a+) dport (.-) accept$") end
      if proto then
         for p in ports:gmatch("%d+") do
            got[proto .. " " .. p .. (from and " from " .. from or "")] = true
         end
      end
   end
   return got, listing:match("policy (%a+);")
end

-- The probe: the loaded table inet prop accepts every port the ruleset
-- does (what nft -f of the file made), and drops the rest.
function impl.nftables.verify(sys, a)
   if network_not_own(sys) then return true end
   local r = sys:query({ "nft", "list", "chain", TABLE[1], TABLE[2], "input" })
   if r.code ~= 0 then
      return false, "table inet prop is not loaded (nft list chain inet prop input: "
         .. R.tail(r.stderr ~= "" and r.stderr or r.stdout, 1) .. ")"
   end
   local got, policy = accepted(r.stdout)
   local want = {}
   for _, x in ipairs(all_allow(sys, a)) do
      want[#want + 1] = x.proto .. " " .. x.port .. (x.from and " from " .. x.from or "")
   end
   for _, p in ipairs(a.declared and sys.ports or {}) do
      want[#want + 1] = "tcp " .. p
      want[#want + 1] = "udp " .. p
   end
   local ssh = ssh_port(sys)
   if ssh then want[#want + 1] = "tcp " .. ssh end
   local missing, seen = {}, {}
   for _, w in ipairs(want) do
      if not got[w] and not seen[w] then missing[#missing + 1] = w end
      seen[w] = true
   end
   local said = {}
   if #missing > 0 then
      said[#said + 1] = "the loaded table inet prop does not accept " .. concat(missing, ", ")
   end
   if policy ~= "drop" then
      said[#said + 1] = fmt("its input chain's policy is %s, want drop", policy or "missing")
   end
   if #said > 0 then return false, concat(said, "; ") end
   return true
end

-- nft -f has loaded the table when it returns: no wait.
impl.nftables.probe_timeout = 0

-- The ruleset loaded again from the file, as a run loads it.
function impl.nftables.repair(sys, a)
   load(sys, a.recipe, network_not_own(sys))
end

function impl.reverted.ensure(sys, a)
   local what = a.recipe
   local changed = false
   local old = sys:read(PATH)
   if old ~= nil and old ~= REVERTED and old:find("^#!/usr/sbin/nft %-f\n# Written by prop") then
      sys:write(PATH, REVERTED, { mode = tonumber("0755", 8) })
      changed = true
   end
   if not network_not_own(sys) and sys:exists("/usr/sbin/nft")
      and table_loaded(sys, what) then
      R.run(sys, what, { "nft", "delete", "table", TABLE[1], TABLE[2] })
      sys:note("table inet prop removed from the running ruleset")
      changed = true
   end
   return changed and "changed" or "ok"
end

-- Arguments --------------------------------------------------------------

local function check_v4(v)
   local a, b, c, d, len = v:match("^(%d+)%.(%d+)%.(%d+)%.(%d+)/?(%d*)$")
   if not a then return false end
   for _, o in ipairs({ a, b, c, d }) do
      if #o > 3 or tonumber(o) > 255 then return false end
   end
   return len == "" or (#len <= 2 and tonumber(len) <= 32)
end

local function check_v6(v)
   local addr, len = v:match("^([%x:.]+)/?(%d*)$")
   if not addr or not addr:find(":") or addr:find(":::") then return false end
   local _, dc = addr:gsub("::", "")
   if dc > 1 then return false end
   return len == "" or (#len <= 3 and tonumber(len) <= 128)
end

local function check_from(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if check_v4(v) or check_v6(v) then return nil, v end
   return fmt('%s %s is not an address or network: expected such as "192.0.2.0/24", '
              .. '"198.51.100.7" or "2001:db8::/32"', what, args.show(v))
end

local rule_schema = {
   port = args.port,
   proto = function(v, what)
      if v == "tcp" or v == "udp" then return nil, v end
      return fmt('%s must be "tcp" or "udp", got %s', what, args.show(v))
   end,
   from = check_from,
}

-- An entry of allow: a port (TCP), or { port =, proto =, from = }.
local function check_rule(v, what)
   if type(v) ~= "table" then
      local err, p = args.port(v, what)
      if err then
         return err .. ' (or a table { port = 53, proto = "udp", from = "192.0.2.0/24" })'
      end
      return nil, { port = p, proto = "tcp" }
   end
   local err, o = args.options(v, rule_schema, what)
   if err then return err end
   if o.port == nil then return fmt("%s has no port", what) end
   return nil, { port = o.port, proto = o.proto or "tcp", from = o.from }
end

local function schema(with_declared)
   local s = {
      allow = function(v, what)
         if type(v) ~= "table" then
            return fmt('%s must be a list of ports and rules such as { 22, 80, '
                       .. '{ port = 53, proto = "udp" } }, got %s', what, args.show(v))
         end
         return args.list(v, what, check_rule, { single = false })
      end,
      policy = function(v, what)
         if v == "drop" or v == "reject" then return nil, v end
         return fmt('%s must be "drop" or "reject", got %s', what, args.show(v))
      end,
      ping = args.boolean,
   }
   if with_declared then s.declared = args.boolean end
   return s
end

-- What the ruleset is made of, in words: the value of its file.fragments
-- claim, so that two different firewalls on one host conflict (P007).
local function summary(a)
   local parts = { a.recipe }
   for _, r in ipairs(a.allow) do
      parts[#parts + 1] = (r.from and r.from .. " " or "") .. r.port .. "/" .. r.proto
   end
   if a.declared then parts[#parts + 1] = "declared ports" end
   parts[#parts + 1] = "policy " .. a.policy
   if not a.ping then parts[#parts + 1] = "no ping" end
   return concat(parts, " ")
end

local function make(recipe, opts, with_declared)
   local err, o = args.options(opts, schema(with_declared), recipe)
   if err then return core.invalid((recipe:gsub("%.", " ")), args.join(recipe, err)) end
   local a = {
      recipe = recipe,
      allow = o.allow or {},
      declared = (not with_declared) or o.declared == true,
      policy = o.policy or "drop",
      ping = o.ping ~= false,
   }
   local desc = {}
   for _, r in ipairs(a.allow) do
      desc[#desc + 1] = (r.from and r.from .. " " or "") .. r.port .. (r.proto == "udp" and "/udp" or "")
   end
   local label
   if with_declared then
      if a.declared then desc[#desc + 1] = "the declared ports" end
      label = fmt("firewall nftables allows %s", #desc > 0 and concat(desc, ", ") or "nothing")
   else
      table.insert(desc, 1, "the declared ports")
      label = fmt("firewall allows %s", concat(desc, ", "))
   end
   local on = core.leaf{ desc = label, targets = "DebianLike", impl = impl.nftables, args = a,
                         claims = { claim.package_installed("nftables"),
                                    claim.file_fragments(PATH, summary(a)) } }
   local off = core.leaf{ desc = "firewall nftables reverted", targets = "DebianLike",
                          impl = impl.reverted, args = { recipe = recipe .. " (reverted)" },
                          claims = { claim.file_generated(PATH, "firewall.nftables reverted") } }
   return core.pair(on, off)
end

--[[ firewall.nftables { allow = { PORT | { port =, proto =, from = }, ... },
                         declared = false, policy = "drop", ping = true }
  DebianLike, revertable: its revert empties prop's table (the file then
  deletes it when loaded) and removes it from the running ruleset.
  Claims: package.installed nftables, file.fragments /etc/nftables.conf
  (the value names the rules: two different firewalls on one host are
  P007; each role adds its ports with firewall.allow, whose rules the
  ruleset holds after allow's).  The revert claims file.generated
  /etc/nftables.conf.
  allow: ports accepted; a number is a TCP port, a table gives proto
  ("tcp" or "udp") and from (an IPv4 or IPv6 address or network that
  the connection must come from).  declared: also accept every port the
  host's properties declare (sys.ports), on TCP and UDP, as
  firewall.open_declared does.  policy: "drop" (default) or "reject"
  (a TCP reset or an ICMP "administratively prohibited").  ping: accept
  ICMP and ICMPv6 (default true); false accepts only the ICMP errors and
  the IPv6 neighbour discovery the network needs.
  Always accepted: loopback, established and related connections, and,
  when prop reaches the host over SSH, the port of that connection.
  Run time: installs nftables when missing; writes the ruleset of one
  table "inet prop" (input chain, policy drop) to /etc/nftables.conf
  after nft -c -f accepted it (a ruleset nft refuses leaves the file and
  the running firewall alone, and fails with nft's message), loads it
  with nft -f /etc/nftables.conf when the file changed or the table is
  not loaded, and enables nftables.service where systemd runs.  Other
  tables (Docker's) are not touched.  In a chroot or a connect.dir tree
  the file is written but not loaded (they share this machine's network).
  Example:
    firewall.nftables { allow = { 22, 80, 443, { port = 53, proto = "udp" },
                                  { port = 5432, from = "192.0.2.0/24" } } }
]]
function firewall.nftables(opts, ...)
   if select("#", ...) > 0 then
      return core.invalid("firewall nftables", "firewall.nftables takes one table of options")
   end
   return make("firewall.nftables", opts, true)
end

--[[ firewall.open_declared { allow = {...}, policy = "drop", ping = true }
  DebianLike, revertable (as firewall.nftables).
  firewall.nftables accepting exactly the ports that the host's
  properties declare (ports=: apache.installed's 80 and 443, a
  property {} with ports, the ports its Docker containers publish), on
  TCP and UDP, and those of allow; with the SSH port prop is connected to
  and nothing else.  A port stops being accepted when the property that
  declared it leaves the host.  prop show and prop claims port:N list
  what declares each port.
  Claims: as firewall.nftables.
  Example:
    host "web1.example.com" {
      os.debian("bookworm", "amd64"),
      nginx.installed(),            -- 80 and 443
      firewall.open_declared(),     -- 80, 443 and prop's SSH port
    }
]]
function firewall.open_declared(opts, ...)
   if select("#", ...) > 0 then
      return core.invalid("firewall open_declared",
                          "firewall.open_declared takes one table of options")
   end
   return make("firewall.open_declared", opts, false)
end

-- firewall.allow ----------------------------------------------------------

-- A firewall.allow makes the ruleset what the host's firewall.nftables
-- (or open_declared) writes, as that does: the order of the roles does
-- not matter, and nothing else is ever written.
function impl.allow.ensure(sys, a)
   for _, c in ipairs(sys:claims(PATH)) do
      if c.kind == "file.fragments" and c.key == PATH and type(c.args) == "table"
         and c.args.recipe and c.args.recipe:find("^firewall%.") then
         local fw = c.args
         -- Once this run made the ruleset true (nft -c, enabled at boot),
         -- the file's bytes and the loaded table are what is looked at.
         local done = sys.cache[ENSURED]
         if done and done == ruleset(fw, all_allow(sys, fw), fw.declared and sys.ports or nil,
                                     ssh_port(sys))
            and sys:read(PATH) == done
            and (R.is_dir_tree(sys) or network_not_own(sys) or table_loaded(sys, a.desc)) then
            return "ok"
         end
         return impl.nftables.ensure(sys, fw)
      end
   end
   R.fail("%s: host has no firewall.nftables nor firewall.open_declared to add it to",
          a.desc)
end

local allow_schema = {
   port = args.port,
   proto = rule_schema.proto,
   from = function(v, what)
      if type(v) == "table" then
         return args.list(v, what, check_from, { single = false, nonempty = true })
      end
      local err, f = check_from(v, what)
      if err then
         return err .. " (or a list of them)"
      end
      return nil, { f }
   end,
}

--[[ firewall.allow { port =, proto = "tcp", from = ADDRESS or { ADDRESS, ... } }
  DebianLike, not revertable (leave it out of the site: the next run's
  ruleset lacks it).
  One more port accepted by the host's firewall, from any property (any
  role): firewall.nftables and firewall.open_declared put every
  firewall.allow of the host in the ruleset they write, beside their own
  allow.  Two roles allowing one port agree.
  Claims: a file.fragment of /etc/nftables.conf for each rule (named
  "tcp 22", "tcp 5432 from 192.0.2.0/24").  A firewall.allow on a host
  without firewall.nftables or firewall.open_declared is P012.
  port: 1..65535; proto: "tcp" (default) or "udp"; from: an IPv4 or IPv6
  address or network, or a list of them (one rule each).
  Run time: makes the ruleset what the host's firewall.nftables writes
  (found with sys:claims), as that does: ok when it already is.  Once
  the ruleset was made true in this run (nft -c, enabled at boot), only
  the file's bytes and the loaded table are checked.
  Example:
    firewall.allow { port = 5432, from = { "192.0.2.0/24", "2001:db8::/32" } }
]]
function firewall.allow(opts, ...)
   local desc = "firewall allow"
   if type(opts) == "table" and math.type(opts.port) == "integer" then
      desc = fmt("firewall allow %s %d", type(opts.proto) == "string" and opts.proto or "tcp",
                 opts.port)
   end
   if select("#", ...) > 0 then
      return core.invalid(desc, "firewall.allow takes one table of options")
   end
   local err, o = args.options(opts, allow_schema, "firewall.allow")
   if not err and opts == nil then err = "firewall.allow needs { port = N }" end
   if not err and o.port == nil then err = "firewall.allow has no port (port = N)" end
   if err then return core.invalid(desc, args.join("firewall.allow", err)) end
   local rules, claims, names = {}, {}, {}
   for _, from in ipairs(o.from or { false }) do
      local r = { port = o.port, proto = o.proto or "tcp", from = from or nil }
      local name = r.proto .. " " .. r.port .. (r.from and " from " .. r.from or "")
      rules[#rules + 1] = r
      names[#names + 1] = name
      claims[#claims + 1] = claim.file_fragment(PATH, fmt("%s\n50\n%s", name, rule_line(r)))
   end
   desc = "firewall allows " .. concat(names, ", ")
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl.allow,
                     args = { desc = desc, rules = rules }, claims = claims,
                     norevert = "firewall.allow has no revert action: leave it out of the site "
                        .. "and the next ruleset lacks it" }
end

return args.strict_module(firewall, "firewall")
