-- prop.network: network interfaces with ifupdown (Debian's
-- /etc/network/interfaces), Propellor's Network module.
--
-- Each interface prop configures has one file of its own,
-- /etc/network/interfaces.d/NAME: the file is the interface's claim, so
-- two properties configuring one interface differently are P007.
-- /etc/network/interfaces must source that directory (the line is added
-- when missing), and a stanza for the same interface left in it (the
-- Debian installer writes one) is commented out, since ifup would read
-- both.  An interface whose file changed is taken down and up again,
-- except the one prop's own SSH connection goes through, unless asked:
-- a mistake there would cut prop off from the host.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local network = {}

local fmt, concat = string.format, table.concat

local MAIN = "/etc/network/interfaces"
local DIR = "/etc/network/interfaces.d"
local SOURCE = "source /etc/network/interfaces.d/*"
local MOVED = "#prop: "

-- ---------------------------------------------------------------------
-- Addresses, checked at evaluation.

-- family ("inet" or "inet6") and the address's bytes (4 or 16), or nil:
-- read by inet_pton(3), as the kernel and ifupdown read it.
local inet_pton = require("prop.core").inet_pton
local function parse_addr(s)
   if type(s) ~= "string" then return nil end
   return inet_pton(s)
end

-- Whether an IPv6 gateway is on-link whatever the interface's own
-- prefix: a link-local address (fe80::/10) is on every link by
-- definition, and an IPv4-compatible one (::a.b.c.d, the 6to4 relay
-- ::192.88.99.1 on a sit tunnel) is reached through its IPv4 address.
local function on_link(fam, b)
   if fam ~= "inet6" then return false end
   if b[1] == 0xfe and (b[2] & 0xc0) == 0x80 then return true end
   for i = 1, 12 do if b[i] ~= 0 then return false end end
   return (b[13] | b[14] | b[15]) ~= 0 -- not :: nor ::1
end

-- Whether a and b (same family) share the first len bits.
local function same_prefix(a, b, len, width)
   for i = 1, #a do
      local bits = math.max(0, math.min(width, len - (i - 1) * width))
      local shift = width - bits
      if (a[i] >> shift) ~= (b[i] >> shift) then return false end
   end
   return true
end

local function check_address(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   local addr, len = v:match("^([^/]+)/(%d+)$")
   local fam = addr and parse_addr(addr)
   if not fam or #len > 3 or tonumber(len) > (fam == "inet" and 32 or 128) then
      return fmt('%s %s is not an address with its prefix length: expected such as '
                 .. '"192.0.2.5/24" or "2001:db8::5/64"', what, args.show(v))
   end
   return nil, v
end

local function check_host_addr(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if not parse_addr(v) then
      return fmt('%s %s is not an IP address: expected such as "192.0.2.1" or "2001:db8::1"',
                 what, args.show(v))
   end
   return nil, v
end

-- An interface name as the kernel takes it: at most 15 characters, no
-- "/", ":" or blank.  "lo" is left to ifupdown's own stanza.
local function check_name(v, what)
   local err = args.matching(v, what, "[%w][%w_.-]*",
                             'an interface name such as "eth0" or "enp1s0" (letters, digits, '
                             .. '"_", "." and "-")')
   if err then return err end
   if #v > 15 then return fmt("%s %s is longer than 15 characters", what, args.show(v)) end
   if v == "lo" then return fmt('%s "lo" is the loopback: ifupdown configures it already', what) end
   return nil, v
end

-- An extra ifupdown option line ("mtu 1400", "post-up ip route add ...").
local function check_option(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("[%z\r\n]") then return fmt("%s %s contains a newline or NUL", what, args.show(v)) end
   local word = v:match("^%s*([%w_-]+)%s+%S")
   if not word then
      return fmt('%s %s must be an option and its value, such as "mtu 1400"', what, args.show(v))
   end
   local stanza = { auto = true, iface = true, mapping = true, source = true,
                    ["source-directory"] = true }
   if stanza[word] or word:find("^allow%-") then
      return fmt("%s %s starts a stanza of its own, not an option of this interface", what,
                 args.show(v))
   end
   return nil, (v:gsub("^%s+", ""):gsub("%s+$", ""))
end

local schema = {
   method = function(v, what)
      if v == "dhcp" or v == "static" then return nil, v end
      return fmt('%s must be "dhcp" or "static", got %s', what, args.show(v))
   end,
   address = check_address,
   gateway = check_host_addr,
   dns = function(v, what) return args.list(v, what, check_host_addr) end,
   auto = args.boolean,
   options = function(v, what) return args.list(v, what, check_option) end,
   over_ssh = args.boolean,
}

-- The interface's stanza, or an error message.
local function stanza(name, o)
   local method = o.method or (o.address and "static") or nil
   if method == nil then
      return nil, 'give method = "dhcp", or address = "192.0.2.5/24" for a static address'
   end
   local fam = "inet"
   if method == "dhcp" then
      for _, k in ipairs { "address", "gateway", "dns" } do
         if o[k] then return nil, fmt('%s is for a static address, not with method = "dhcp"', k) end
      end
   else
      if not o.address then return nil, 'method = "static" needs address = "192.0.2.5/24"' end
      local addr, len = o.address:match("^([^/]+)/(%d+)$")
      local a
      fam, a = parse_addr(addr)
      if o.gateway then
         local gfam, g = parse_addr(o.gateway)
         if gfam ~= fam then
            return nil, fmt("gateway %s is not of the address's family (%s)", args.show(o.gateway),
                            o.address)
         end
         if not on_link(gfam, g) and not same_prefix(a, g, tonumber(len), 8) then
            return nil, fmt("gateway %s is outside %s: the kernel could not reach it",
                            args.show(o.gateway), o.address)
         end
         if concat(g, ".") == concat(a, ".") then
            return nil, fmt("gateway %s is the interface's own address", args.show(o.gateway))
         end
      end
   end
   local l = { fmt("# %s, managed by prop: edits here are overwritten", name) }
   l[#l + 1] = (o.auto == false and "allow-hotplug " or "auto ") .. name
   l[#l + 1] = fmt("iface %s %s %s", name, fam, method)
   if method == "static" then
      l[#l + 1] = "\taddress " .. o.address
      if o.gateway then l[#l + 1] = "\tgateway " .. o.gateway end
      if o.dns then l[#l + 1] = "\tdns-nameservers " .. concat(o.dns, " ") end
   end
   for _, opt in ipairs(o.options or {}) do l[#l + 1] = "\t" .. opt end
   return concat(l, "\n") .. "\n"
end

-- ---------------------------------------------------------------------
-- Run time.

local impl = { interface = {}, removed = {}, preserve = {} }

-- Why interfaces are not taken down and up on this target, or nil: a
-- chroot and a directory tree share the network of the machine running
-- prop.
local function network_not_own(sys)
   if R.is_dir_tree(sys) then
      return "a directory tree shares the network of the machine running prop"
   end
   if sys.container == "chroot" then return "a chroot shares this machine's network" end
   return nil
end

-- The addresses of every interface (or of NAME) from ip -o addr: a list
-- of { ifname, family, addr, prefixlen, scope, dynamic }, or nil when ip
-- is missing.  (One line per address; a lower flag "dynamic" marks one a
-- DHCP client or autoconfiguration gave.)
local function ip_addrs(sys, what, name)
   local argv = { "ip", "-o", "addr", "show" }
   if name then argv[#argv + 1], argv[#argv + 2] = "dev", name end
   local r = sys:query(argv)
   if r.code == 127 or r.code == -1 then return nil end
   if r.code ~= 0 then
      if name then return {} end
      R.command_failed(what, argv, r)
   end
   local list = {}
   for l in r.stdout:gmatch("[^\n]+") do
      local ifname, fam, addr, len, rest = l:match("^%d+:%s+([^%s@]+)%S*%s+(inet6?)%s+([^/%s]+)/(%d+)(.*)$")
      if ifname then
         list[#list + 1] = { ifname = ifname, family = fam, addr = addr, prefixlen = tonumber(len),
                             scope = rest:match("scope (%S+)"),
                             dynamic = rest:find("%f[%w]dynamic%f[%W]") ~= nil }
      end
   end
   return list
end

-- The name of the interface prop's own SSH connection goes through, true
-- when over SSH but it cannot be told which, or nil when prop is not
-- connected over SSH.  The server's end of the connection
-- ($SSH_CONNECTION) is an address of one interface.
local function ssh_interface(sys, what)
   local t = sys.transport
   if type(t) ~= "string" or t:sub(1, 4) ~= "ssh:" then return nil end
   local key = "network.ssh_interface"
   if sys.cache[key] ~= nil then return sys.cache[key] end
   local found = true
   local r = sys:query({ "sh", "-c", 'printf "%s" "$SSH_CONNECTION"' })
   local server = r.code == 0 and r.stdout:match("^%S+ %d+ (%S+) %d+") or nil
   if server then
      server = server:gsub("^::ffff:", "")
      for _, ai in ipairs(ip_addrs(sys, what) or {}) do
         if ai.addr == server then found = ai.ifname end
      end
   end
   sys.cache[key] = found
   return found
end

-- Why NAME is left up as it is, or nil when it may be taken down and up.
local function keep_up(sys, what, name, over_ssh)
   local why = network_not_own(sys)
   if why then return why end
   if over_ssh then return nil end
   local s = ssh_interface(sys, what)
   if s == name then
      return fmt("%s carries prop's own SSH connection (over_ssh = true to do it anyway)", name)
   elseif s == true then
      return "prop is connected over SSH and cannot tell through which interface "
         .. "(over_ssh = true to do it anyway)"
   end
   return nil
end

-- /etc/network/interfaces sources interfaces.d, and holds no stanza of
-- its own for NAME (its lines are commented out).  Returns whether it
-- changed.
local function main_file(sys, what, name)
   local text = sys:read(MAIN)
   local lines = R.split_lines(text or "")
   local out, sourced, moved, inside = {}, false, false, false
   for _, l in ipairs(lines) do
      local w1, w2 = l:match("^%s*(%S+)%s*(%S*)")
      if l:find("^%s*source%s+/etc/network/interfaces%.d/%*%s*$")
         or l:find("^%s*source%-directory%s+/etc/network/interfaces%.d/?%s*$") then
         sourced = true
      end
      if w1 == "iface" or w1 == "mapping" or w1 == "auto" or w1 == "source"
         or w1 == "source-directory" or (w1 and w1:find("^allow%-")) then
         inside = w1 == "iface" and w2 == name
         if w1 == "auto" or w1:find("^allow%-") then
            -- "auto eth0 eth1": only NAME is taken out of it.
            local rest, has = {}, false
            for word in l:gmatch("%S+") do
               if word == name then has = true else rest[#rest + 1] = word end
            end
            if has then
               out[#out + 1] = MOVED .. l
               if #rest >= 2 then out[#out + 1] = concat(rest, " ") end
               moved = true
               goto next
            end
         end
      end
      if inside and w1 ~= nil and not w1:find("^#") then
         out[#out + 1] = MOVED .. l
         moved = true
      else
         out[#out + 1] = l
      end
      ::next::
   end
   if not sourced then
      table.insert(out, 1, SOURCE)
      if text == nil then
         out[#out + 1] = ""
         out[#out + 1] = "auto lo"
         out[#out + 1] = "iface lo inet loopback"
      end
   end
   if sourced and not moved then return false end
   if moved then
      sys:note(fmt("the stanza of %s in %s is commented out (%s...): %s/%s replaces it", name,
                   MAIN, MOVED, DIR, name))
   end
   sys:write(MAIN, concat(out, "\n") .. "\n")
   return true
end

local function ready(sys, what, name)
   local changed = R.apt_install(sys, what, { "ifupdown" })
   if main_file(sys, what, name) then changed = true end
   local st = sys:stat(DIR)
   if st == nil then
      sys:mkdir(DIR, { mode = tonumber("0755", 8) })
      changed = true
   elseif st.type ~= "directory" then
      R.fail("%s: %s is a %s, not a directory", what, DIR, st.type)
   end
   return changed
end

-- ifup NAME: nil, or ifup's words when it fails.
local function ifup(sys, name)
   local r = sys:run({ "ifup", name }, R.any)
   if r.code ~= 0 then return R.tail((r.stderr or "") .. "\n" .. (r.stdout or ""), 4) end
   return nil
end

-- ifdown NAME as the file there now says (it undoes what that file set
-- up); a failure is ignored: the interface may not have been up.
local function ifdown(sys, name)
   sys:run({ "ifdown", "--force", name }, R.any)
end

function impl.interface.ensure(sys, a)
   local what = a.what
   local path = DIR .. "/" .. a.name
   local changed = ready(sys, what, a.name)
   local st = sys:stat(path)
   if st and st.type ~= "file" then R.fail("%s: %s is a %s, not a file", what, path, st.type) end
   local old = st and sys:read(path)
   if old == a.content then return changed and "changed" or "ok" end
   -- ifquery parses the new stanza before it replaces the old one: the
   -- copy is outside interfaces.d, so ifup never reads it.
   if not sys.dry and not R.is_dir_tree(sys) then
      local check = "/etc/network/.prop-check-" .. a.name
      sys:write(check, a.content)
      local ok, r = pcall(sys.query, sys, { "ifquery", "-i", check, a.name })
      local rok, rerr = pcall(sys.remove, sys, check)
      if not ok then error(r, 0) end
      if not rok then error(rerr, 0) end
      if r.code ~= 0 then
         local said = R.tail((r.stderr or "") .. (r.stdout or ""), 4):gsub(check:gsub("%p", "%%%0"), path)
         R.fail("%s: ifquery refuses the new stanza, %s is left as it was: %s", what, path, said)
      end
   end
   local why = keep_up(sys, what, a.name, a.over_ssh)
   if why then
      sys:write(path, a.content)
      sys:note(fmt("%s not taken down and up: %s; the new configuration applies at the next "
                   .. "boot or ifdown/ifup", a.name, why))
      return "changed"
   end
   if sys.dry then
      sys:write(path, a.content)
      sys:note(fmt("would take %s down and up (ifdown, ifup)", a.name))
      return "changed"
   end
   if old then ifdown(sys, a.name) end
   sys:write(path, a.content)
   local err = ifup(sys, a.name)
   if err then
      -- The previous configuration is put back, and brought up again.
      ifdown(sys, a.name)
      if old then sys:write(path, old) else sys:remove(path) end
      local again = old and ifup(sys, a.name)
      R.fail("%s: ifup %s failed, so %s was put back as it was%s:\n%s", what, a.name, path,
             again and " (and ifup of it failed too: " .. again .. ")" or "", err)
   end
   sys:note(fmt("%s taken down and up with its new configuration", a.name))
   return "changed"
end

-- The probe: the interface is there and holds its address (a static
-- one, compared as numbers), or some IPv4 address (dhcp).  Where the
-- interface is not taken down and up (a chroot, a tree, prop's own SSH
-- connection), or with no ip command to look with (ifupdown does not
-- need iproute2), the file is all there is to see: it holds.
function impl.interface.verify(sys, a)
   if keep_up(sys, a.what, a.name, a.over_ssh) then return true end
   local list = ip_addrs(sys, a.what, a.name)
   if list == nil then return true end
   if sys:query({ "ip", "link", "show", "dev", a.name }).code ~= 0 then
      return false, fmt("there is no interface %s", a.name)
   end
   local have = {}
   for _, ai in ipairs(list) do
      have[#have + 1] = ai.addr .. "/" .. ai.prefixlen
      if a.address then
         local addr, len = a.address:match("^([^/]+)/(%d+)$")
         local fam, want = parse_addr(addr)
         local hfam, h = parse_addr(ai.addr)
         if hfam == fam and ai.prefixlen == tonumber(len) and concat(h, ".") == concat(want, ".") then
            return true
         end
      elseif ai.family == "inet" then
         return true
      end
   end
   return false, fmt("%s has %s, want %s (ip -o addr)", a.name,
                     #have > 0 and concat(have, " ") or "no address",
                     a.address or "an IPv4 address from DHCP")
end

-- The repair: down and up again with the file as it is.
function impl.interface.repair(sys, a)
   ifdown(sys, a.name)
   local err = ifup(sys, a.name)
   if err then R.fail("%s: ifup %s failed:\n%s", a.what, a.name, err) end
   sys:note(fmt("%s taken down and up again", a.name))
end

function impl.removed.ensure(sys, a)
   local path = DIR .. "/" .. a.name
   local st = sys:stat(path)
   if st == nil then return "ok" end
   if st.type == "directory" then R.fail("%s: %s is a directory", a.what, path) end
   local why = keep_up(sys, a.what, a.name, a.over_ssh)
   if why then
      sys:note(fmt("%s not taken down: %s", a.name, why))
   elseif not sys.dry and sys:exists("/sbin/ifdown") then
      ifdown(sys, a.name)
   elseif sys.dry then
      sys:note(fmt("would take %s down (ifdown)", a.name))
   end
   sys:remove(path)
   return "changed"
end

-- The stanza that keeps NAME as it is now: its global IPv4 and IPv6
-- addresses (not those a DHCP client or autoconfiguration gave it: they
-- come back by themselves) and its default routes.
local function current(sys, what, name)
   local list = ip_addrs(sys, what, name)
   if list == nil then R.fail("%s: the ip command is missing (install iproute2)", what) end
   if sys:query({ "ip", "link", "show", "dev", name }).code ~= 0 then
      R.fail("%s: there is no interface %s", what, name)
   end
   local by_fam = { inet = {}, inet6 = {} }
   for _, ai in ipairs(list) do
      if ai.scope == "global" and not ai.dynamic then
         local l = by_fam[ai.family]
         l[#l + 1] = ai.addr .. "/" .. ai.prefixlen
      end
   end
   if #by_fam.inet == 0 and #by_fam.inet6 == 0 then
      R.fail("%s: %s has no static global address to preserve", what, name)
   end
   local out = { fmt("# %s as it was found, preserved by prop", name), "auto " .. name }
   for _, fam in ipairs { "inet", "inet6" } do
      local addrs = by_fam[fam]
      if #addrs > 0 then
         out[#out + 1] = fmt("iface %s %s static", name, fam)
         for _, ad in ipairs(addrs) do out[#out + 1] = "\taddress " .. ad end
         local r = sys:query({ "ip", fam == "inet" and "-4" or "-6", "route", "show",
                               "default", "dev", name })
         local gw = r.code == 0 and r.stdout:match("^default via (%S+)") or nil
         if gw then out[#out + 1] = "\tgateway " .. gw end
      end
   end
   return concat(out, "\n") .. "\n"
end

function impl.preserve.ensure(sys, a)
   local what = a.what
   local path = DIR .. "/" .. a.name
   local st = sys:stat(path)
   if st then
      if st.type ~= "file" then R.fail("%s: %s is a %s, not a file", what, path, st.type) end
      -- Written already (by this property or by hand): it is what the
      -- next boot reads, whatever the interface looks like now.
      local changed = ready(sys, what, a.name)
      return changed and "changed" or "ok"
   end
   local content = current(sys, what, a.name)
   ready(sys, what, a.name)
   sys:write(path, content)
   sys:note(fmt("%s/%s written from the live configuration of %s", DIR, a.name, a.name))
   return "changed"
end

-- ---------------------------------------------------------------------
-- Properties.

local function claims_for(name, content)
   local path = DIR .. "/" .. name
   return { content and claim.file_content(path, content)
               or claim.file_generated(path, "network.preserve_static"),
            claim.file_line(MAIN, SOURCE),
            claim.file_directory(DIR),
            claim.file_generated("/etc/network/.prop-check-" .. name, "network.interface"),
            claim.package_installed("ifupdown") }
end

--[[ network.interface(name, { method = "dhcp" } | { address=, gateway=, dns=, auto=, options=, over_ssh= })
  DebianLike (ifupdown), revertable: its revert takes the interface down
  and removes its file.
  Writes /etc/network/interfaces.d/NAME: "iface NAME inet dhcp", or a
  static address with its prefix length (IPv4 or IPv6, "inet6" then),
  the gateway (checked to be inside the address's network) and
  dns-nameservers (read by resolvconf when installed).  auto = false
  writes "allow-hotplug" instead of "auto".  options: more ifupdown lines
  for the stanza ("mtu 1400", "post-up ...").
  Claims: file.content /etc/network/interfaces.d/NAME (the interface: two
  properties configuring it differently are P007), file.line
  /etc/network/interfaces "source /etc/network/interfaces.d/*", and
  package.installed ifupdown.
  Run time: installs ifupdown, adds the source line to
  /etc/network/interfaces and comments out ("#prop: ") a stanza for NAME
  left there; the new stanza is parsed with ifquery before it replaces
  the old file.  When the file changed the interface is taken down and
  up (ifdown, ifup); when ifup fails the old file is put back, brought up
  again, and the property fails with ifup's words.  The interface prop's
  SSH connection goes through is not taken down unless over_ssh = true
  (it takes the new configuration at the next boot); nor is any in a
  chroot or a directory tree.
  Verify: ip -o addr shows the interface with its static address (with
  dhcp: an IPv4 address); repair: ifdown, ifup.  Where the interface is
  not taken down and up (prop's SSH connection, a chroot, a tree), or
  there is no ip command (iproute2), only the file is checked.
  Example:
    network.interface("eth0", { method = "dhcp" })
    network.interface("eth1", { address = "192.0.2.5/24", gateway = "192.0.2.1",
                                dns = { "192.0.2.53" } })
]]
function network.interface(name, cfg)
   local desc = "network interface " .. (type(name) == "string" and name or "?")
   local nerr = check_name(name, "name")
   local oerr, o
   if type(cfg) ~= "table" then
      oerr = fmt('the configuration must be a table such as { method = "dhcp" } or '
                 .. '{ address = "192.0.2.5/24" }, got %s', args.got(cfg))
   else
      oerr, o = args.options(cfg, schema, "network.interface")
   end
   local content, serr
   if not nerr and not oerr then content, serr = stanza(name, o) end
   local msg = args.join("network.interface", nerr, oerr, serr)
   if msg then return core.invalid(desc, msg) end
   desc = desc .. (o.address and " " .. o.address or " dhcp")
   local a = { what = "network.interface " .. name, name = name, content = content,
               over_ssh = o.over_ssh, address = o.address }
   local up = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.interface, args = a,
                         claims = claims_for(name, content) }
   local down = core.leaf{ desc = "no network interface file for " .. name, targets = "DebianLike",
                           impl = impl.removed, args = a,
                           claims = { claim.file_absent(DIR .. "/" .. name) } }
   return core.pair(up, down)
end

--[[ network.preserve_static(name)
  DebianLike (ifupdown), not revertable.
  Writes /etc/network/interfaces.d/NAME from what the interface has now
  (ip -j addr, ip -j route): its global static addresses and default
  gateway, so that a reboot keeps them (Propellor's
  Network.preserveStatic).  Addresses a DHCP client or autoconfiguration
  gave it are left out.
  Claims: file.generated /etc/network/interfaces.d/NAME (a
  network.interface of the same name is P007), file.line
  /etc/network/interfaces "source /etc/network/interfaces.d/*",
  package.installed ifupdown.
  Run time: ok when the file exists (whatever it says: it is what the
  next boot reads); else writes it, and makes /etc/network/interfaces
  source it (commenting out a stanza for NAME there), as
  network.interface does.  Nothing is taken down or up.  Fails when the
  interface is missing or has no static global address.
  Example:
    network.preserve_static "eth0"
]]
function network.preserve_static(name, extra)
   local desc = "network interface " .. (type(name) == "string" and name or "?") .. " preserved"
   local msg = args.join("network.preserve_static", (check_name(name, "name")),
                         (args.options(extra, {}, "network.preserve_static")))
   if msg then return core.invalid(desc, msg) end
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl.preserve,
                     args = { what = "network.preserve_static " .. name, name = name },
                     claims = claims_for(name, nil),
                     norevert = "network.preserve_static has no revert action: remove "
         .. DIR .. "/" .. name .. " with file.absent" }
end

return args.strict_module(network, "network")
