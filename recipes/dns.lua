-- prop.dns: BIND zones made from the site.
--
-- A zone's A, AAAA and CNAME records come from what every host of the
-- site declares (ipv4, ipv6, alias), as Propellor's Dns module makes them,
-- plus the records given; the zone is written at run time, when the whole
-- site is known, and its serial changes only when its records do.  Two
-- hosts that give one name (a host name or an alias) are P013 in the
-- pre-pass, before any zone is written.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local dns = {}

local fmt, concat = string.format, table.concat

local impl = { zone = {}, server = {}, reload = {} }

local zone_dir = "/etc/bind"
local conf_dir = "/etc/bind/prop"
local local_conf = "/etc/bind/named.conf.local"

local function zone_file(zone) return zone_dir .. "/db." .. zone end
local function stanza_file(zone) return conf_dir .. "/" .. zone .. ".conf" end
local function include_line(zone) return fmt('include "%s";', stanza_file(zone)) end

-- ---------------------------------------------------------------------
-- Run time.

local function absolute(name) return (name:gsub("%.?$", ".")) end

-- name relative to zone ("@" for the apex), or nil when it is outside it.
local function in_zone(name, zone)
   if name == zone then return "@" end
   local suffix = "." .. zone
   if #name > #suffix and name:sub(-#suffix) == suffix then return name:sub(1, -#suffix - 1) end
   return nil
end

-- The records of zone from the hosts of the site: { name, type, value }.
local function host_records(zone)
   local recs = {}
   for _, h in ipairs(core.hosts()) do
      local v4, v6 = h:info "ipv4", h:info "ipv6"
      local rel = in_zone(h.name, zone)
      if rel then
         for _, a in ipairs(v4) do recs[#recs + 1] = { rel, "A", a } end
         for _, a in ipairs(v6) do recs[#recs + 1] = { rel, "AAAA", a } end
      end
      for _, alias in ipairs(h:info "alias") do
         local arel = in_zone(alias, zone)
         if arel and (arel == "@" or not rel) and (#v4 > 0 or #v6 > 0) then
            -- The apex cannot be a CNAME, and a host named outside the
            -- zone (a bare "db") has no name in it to point at: the
            -- host's addresses, then.
            for _, a in ipairs(v4) do recs[#recs + 1] = { arel, "A", a } end
            for _, a in ipairs(v6) do recs[#recs + 1] = { arel, "AAAA", a } end
         elseif arel and arel ~= "@" and (rel or h.name:find(".", 1, true)) then
            -- A host of the zone, or one with a name of its own elsewhere.
            -- (A bare name without addresses is P012 in the pre-pass.)
            recs[#recs + 1] = { arel, "CNAME", absolute(h.name) }
         end
      end
   end
   return recs
end

-- The zone's text with "SERIAL" where the serial goes.
local function zone_text(a)
   local recs = host_records(a.zone)
   for _, r in ipairs(a.records) do recs[#recs + 1] = r end
   for _, n in ipairs(a.ns) do recs[#recs + 1] = { "@", "NS", absolute(n) } end
   local seen, uniq = {}, {}
   for _, r in ipairs(recs) do
      local k = r[1] .. "\0" .. r[2] .. "\0" .. r[3]
      if not seen[k] then seen[k], uniq[#uniq + 1] = true, r end
   end
   local order = { NS = 1, MX = 2, A = 3, AAAA = 4, CNAME = 5 }
   table.sort(uniq, function(x, y)
      if (x[1] == "@") ~= (y[1] == "@") then return x[1] == "@" end
      if x[1] ~= y[1] then return x[1] < y[1] end
      if x[2] ~= y[2] then return (order[x[2]] or 9) < (order[y[2]] or 9) or
         ((order[x[2]] or 9) == (order[y[2]] or 9) and x[2] < y[2]) end
      return x[3] < y[3]
   end)
   local soa = a.soa
   local lines = {
      fmt("; zone %s, made by prop from the site: changes made here are replaced", a.zone),
      fmt("$ORIGIN %s", absolute(a.zone)),
      fmt("$TTL %d", soa.ttl),
      fmt("@\tIN\tSOA\t%s %s (", absolute(soa.ns), absolute(soa.email:gsub("@", "."))),
      "\t\tSERIAL\t; serial",
      fmt("\t\t%d\t; refresh", soa.refresh),
      fmt("\t\t%d\t; retry", soa.retry),
      fmt("\t\t%d\t; expire", soa.expire),
      fmt("\t\t%d )\t; minimum", soa.minimum),
   }
   for _, r in ipairs(uniq) do
      lines[#lines + 1] = fmt("%s\tIN\t%s\t%s", r[1], r[2], r[3])
   end
   return concat(lines, "\n") .. "\n"
end

-- The serial of a zone file written by prop, and its text with "SERIAL"
-- in its place; nil when there is none.
local function old_zone(sys, path)
   local old = sys:read(path)
   if not old then return nil end
   local serial = old:match("\n\t\t(%d+)\t; serial\n")
   if not serial then return nil, nil, old end
   return tonumber(serial), (old:gsub("\n\t\t%d+\t; serial\n", "\n\t\tSERIAL\t; serial\n", 1))
end

-- named-checkzone / named-checkconf of text before it replaces anything.
local function validate(sys, what, argv, text)
   local r = sys:query(argv, { stdin = text })
   if r.code == 127 or r.code == -1 then
      R.fail("%s: %s is not installed (package bind9-utils)", what, argv[1])
   end
   if r.code ~= 0 then
      R.fail("%s: %s refused the new configuration, which was not installed:\n%s", what,
             argv[1], R.tail(r.stdout .. "\n" .. r.stderr))
   end
end

-- Make name's stanza file and its include line true; whether it changed.
local function ensure_stanza(sys, what, zone, stanza)
   validate(sys, what, { "named-checkconf", "/dev/stdin" }, stanza)
   local changed = false
   if not sys:exists(conf_dir) then
      sys:mkdir(conf_dir, { mode = tonumber("0755", 8) })
      changed = true
   end
   if R.ensure_content(sys, what, stanza_file(zone), stanza, { mode = "0644" }) then
      changed = true
   end
   if R.ensure_lines(sys, what, local_conf, { include_line(zone) }) then changed = true end
   return changed
end

-- Whether named answers rndc here, and whether it serves zone: the
-- answer of rndc zonestatus (nil when named does not answer).
local function rndc_ok(sys) return sys:query({ "rndc", "status" }).code == 0 end
local function zonestatus(sys, zone)
   return sys:query({ "rndc", "zonestatus", zone })
end

function impl.zone.ensure(sys, a)
   local what = "dns." .. a.kind .. " " .. a.zone
   local changed = false
   if a.kind == "primary" then
      local path = zone_file(a.zone)
      local body = zone_text(a)
      local serial, old_body = old_zone(sys, path)
      if old_body ~= body then
         local today = tonumber(sys:query({ "date", "-u", "+%Y%m%d" }).stdout:match("%d+") or "0")
         local new = math.max(today * 100, (serial or 0) + 1)
         local text = body:gsub("SERIAL", tostring(new), 1)
         validate(sys, what, { "named-checkzone", a.zone, "/dev/stdin" }, text)
         sys:write(path, text, { mode = tonumber("0644", 8) })
         sys:note(fmt("%s serial %d", sys.dry and "would write it with" or "written with", new))
         changed = true
      end
   end
   if ensure_stanza(sys, what, a.zone, a.stanza) then changed = true end
   -- Files in place are not enough: a named that runs and does not serve
   -- the zone (never told of it) has yet to load it (the reload, on_change).
   if not changed and not R.no_daemons(sys) and not R.is_dir_tree(sys) and rndc_ok(sys)
      and zonestatus(sys, a.zone).code ~= 0 then
      sys:note("named runs but does not serve the zone: it is loaded")
      changed = true
   end
   return changed and "changed" or "ok"
end

-- The reload, run when the zone's files changed (on_change: a failed one
-- is owed to the next run).  A zone new to named (rndc zonestatus does not
-- know it) comes with rndc reconfig, which reads named.conf again; a
-- known primary zone is reloaded (rndc reload ZONE), a secondary's stanza
-- read again (rndc reconfig).  Then named must serve the zone, and a
-- primary the serial of the file.  A stopped or absent named reads the
-- files when it starts.
function impl.reload.ensure(sys, a)
   local what = fmt("dns reload %s", a.zone)
   local why = R.no_daemons(sys)
   if R.is_dir_tree(sys) then why = "no daemon runs in a directory tree" end
   if why then
      sys:note("named not reloaded: " .. why)
      return "ok"
   end
   if not R.service_is_running(sys, "named") then
      sys:note("named is not running: it reads the zone when it starts")
      return "ok"
   end
   if sys.dry then
      sys:note("would tell named (rndc reconfig for a zone new to it, else rndc reload)")
      return "changed"
   end
   local known = zonestatus(sys, a.zone).code == 0
   if not known or a.kind ~= "primary" then
      R.run(sys, what, { "rndc", "reconfig" })
      sys:note(known and "rndc reconfig: the stanza read again"
               or "rndc reconfig: the zone is new to named")
   else
      R.run(sys, what, { "rndc", "reload", a.zone })
      sys:note("rndc reload " .. a.zone)
   end
   local want = a.kind == "primary" and old_zone(sys, zone_file(a.zone)) or nil
   -- named loads zones in the background: ask until it serves the one
   -- written (a few seconds at most).
   local r, served
   for _ = 1, 50 do
      r = zonestatus(sys, a.zone)
      served = r.code == 0 and tonumber(r.stdout:match("serial: (%d+)"))
      if r.code == 0 and (want == nil or served == want) then return "changed" end
      sys:run({ "sleep", "0.2" })
   end
   if r.code ~= 0 then
      R.fail("%s: named does not serve the zone after %s:\n%s", what,
             (known and a.kind == "primary") and "rndc reload" or "rndc reconfig",
             R.tail(r.stdout .. "\n" .. r.stderr))
   end
   R.fail("%s: named serves serial %s, the zone file has %d", what, tostring(served), want)
end

-- ---------------------------------------------------------------------
-- The probe: named answers an SOA query for the zone on the target's
-- port 53 (DNS over TCP, prop connecting through the transport), with
-- authority, and a primary with the serial of its zone file.

local QUERY_ID = 0x7072

local function soa_query(zone)
   local q = string.pack(">I2I2I2I2I2I2", QUERY_ID, 0, 1, 0, 0, 0)
   for label in zone:gmatch("[^.]+") do q = q .. string.pack("s1", label) end
   return string.pack(">s2", q .. "\0" .. string.pack(">I2I2", 6, 1))
end

-- The position after the name at pos in msg (nil when it runs out).
local function skip_name(msg, pos)
   for _ = 1, 128 do
      local len = msg:byte(pos)
      if len == nil then return nil end
      if len == 0 then return pos + 1 end
      if len >= 0xC0 then return pos + 2 end
      pos = pos + 1 + len
   end
   return nil
end

local RCODES = { [1] = "FORMERR", [2] = "SERVFAIL", [3] = "NXDOMAIN", [4] = "NOTIMP", [5] = "REFUSED" }

-- The serial of the SOA record in the answer ans (with its length before
-- it), or nil and what was wrong with it.
local function soa_serial(ans)
   local msg = ans:sub(3)
   if #msg < 12 then return nil, "a short answer" end
   local id, flags, qd, an = string.unpack(">I2I2I2I2", msg)
   if id ~= QUERY_ID then return nil, "an answer to another query" end
   local rcode = flags & 0xF
   if rcode ~= 0 then return nil, fmt("%s (rcode %d)", RCODES[rcode] or "an error", rcode) end
   if flags & 0x0400 == 0 then
      return nil, "an answer without authority: named does not serve the zone itself"
   end
   local pos = 13
   for _ = 1, qd do
      pos = skip_name(msg, pos)
      if not pos then return nil, "a malformed answer" end
      pos = pos + 4
   end
   for _ = 1, an do
      pos = skip_name(msg, pos)
      if not pos or pos + 10 > #msg + 1 then return nil, "a malformed answer" end
      local rtype, _, _, rdlen = string.unpack(">I2I2I4I2", msg, pos)
      pos = pos + 10
      if rtype == 6 then
         local p = skip_name(msg, pos)
         p = p and skip_name(msg, p)
         if not p or p + 4 > #msg + 1 then return nil, "a malformed SOA record" end
         return (string.unpack(">I4", msg, p))
      end
      pos = pos + rdlen
   end
   return nil, "no SOA record in the answer"
end

-- Nothing to ask in a tree or where no daemon runs; a zone file that
-- has just changed is its reload's business (on_change: it waits until
-- named serves the serial written, and a failed one is owed).
function impl.zone.verify(sys, a, changed)
   if changed or R.is_dir_tree(sys) or R.no_daemons(sys) then return true end
   local ans, why = sys:tcp { port = 53, send = soa_query(a.zone), framing = "len16",
                              timeout = 2 }
   local serial
   if ans then serial, why = soa_serial(ans) end
   if not serial then return false, fmt("SOA %s from port 53: %s", a.zone, why) end
   if a.kind == "primary" then
      local want = old_zone(sys, zone_file(a.zone))
      if want and serial ~= want then
         return false, fmt("SOA %s from port 53: named serves serial %d, the zone file has %d",
                           a.zone, serial, want)
      end
   end
   return true
end

-- A stopped named is started; a running one told of the zone (as the
-- reload does), and the serial waited for.
function impl.zone.repair(sys, a)
   if not R.service_is_running(sys, "named") then
      R.service_do(sys, "named", "start")
      sys:note("named started: it did not answer for the zone")
      return
   end
   impl.reload.ensure(sys, { kind = a.kind, zone = a.zone })
end

-- ---------------------------------------------------------------------
-- Recipes.

local function check_dns_name(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   local name = v:gsub("%.$", ""):lower()
   if #name > 253 then return fmt("%s is longer than 253 characters", what) end
   for label in (name .. "."):gmatch("([^.]*)%.") do
      if label == "" or #label > 63 or not label:find("^[%w_-]+$") then
         return fmt('%s %s is not a DNS name such as "example.com"', what, args.show(v))
      end
   end
   return nil, name
end

local function check_email(v, what)
   return args.matching(v, what, "[%w._%-]+@[%w.%-]+", 'an address such as "hostmaster@example.com"')
end

local function check_ttl(v, what)
   local n = math.tointeger(v)
   if not n or n < 0 or n > 2147483647 then
      return fmt("%s must be a number of seconds, got %s", what, args.got(v))
   end
   return nil, n
end

local record_types = { A = true, AAAA = true, CNAME = true, MX = true, TXT = true, NS = true,
                       SRV = true, CAA = true, PTR = true }

local function check_record(v, what)
   if type(v) ~= "table" or #v ~= 3 then
      return fmt('%s must be { name, type, value } such as { "www", "CNAME", "web1.example.com." }, got %s',
                 what, args.got(v))
   end
   local name, rtype, value = v[1], v[2], v[3]
   if type(name) ~= "string" or not (name == "@" or name:find("^[%w_*-][%w_.-]*$")) then
      return fmt('%s: the name %s is not "@" or a name in the zone', what, args.got(name))
   end
   if type(rtype) ~= "string" or not record_types[rtype] then
      return fmt("%s: the type %s is not one of A AAAA CNAME MX TXT NS SRV CAA PTR%s", what,
                 args.got(rtype), type(rtype) == "string" and args.did_you_mean(rtype:upper(), record_types) or "")
   end
   if type(value) ~= "string" or value == "" or value:find("[\n\r]") then
      return fmt("%s: the value must be one line of text, got %s", what, args.got(value))
   end
   if rtype == "TXT" and not value:find('^".*"$') then value = fmt("%q", value) end
   return nil, { name, rtype, value }
end

local soa_schema = {
   ns = check_dns_name, email = check_email, ttl = check_ttl, refresh = check_ttl,
   retry = check_ttl, expire = check_ttl, minimum = check_ttl,
}

local function server_leaf()
   return core.leaf{ desc = "bind9 name server", targets = "DebianLike", impl = impl.server,
                     args = {},
                     claims = { claim.package_installed("bind9"), claim.service_running("named") },
                     ports = { 53 },
                     norevert = "the name server has no revert action: use apt.removed \"bind9\"" }
end

function impl.server.ensure(sys)
   local changed = R.apt_install(sys, "dns", { "bind9", "bind9-utils" })
   -- Not in a tree or a container that runs no init: named starts with it.
   if R.ensure_running(sys, "named") then changed = true end
   return changed and "changed" or "ok"
end

-- The zone's files, and named told of them when they change (a failed
-- reload is owed to the next run, as on_change's hooks are).  Both talk
-- to named: they use its service (W106, P016 in the pre-pass).
local function zone_leaf(kind, zone, a, claims)
   local uses = { services = { "named" } }
   local reload = core.leaf{ desc = fmt("dns zone %s reloaded", zone), targets = "DebianLike",
                             impl = impl.reload, args = { kind = kind, zone = zone },
                             norevert = "a reload has nothing to revert", uses = uses }
   return core.leaf{ desc = fmt("dns %s zone %s", kind, zone), targets = "DebianLike",
                     impl = impl.zone, args = a, claims = claims,
                     norevert = fmt("dns.%s has no revert action", kind), uses = uses }:on_change(reload)
end

--[[ dns.primary(zone, { soa = { ns=, email=, ttl=, refresh=, retry=, expire=, minimum= },
                        ns = { names }, records = { { name, type, value }, ... } })
  DebianLike, port 53 (bind9).
  Claims: file.generated /etc/bind/db.ZONE, file.content of its stanza
  /etc/bind/prop/ZONE.conf, the line include "/etc/bind/prop/ZONE.conf";
  of /etc/bind/named.conf.local, package bind9, service named.
  The zone holds an A and AAAA record for every host of the site whose
  name is in the zone (from its ipv4 and ipv6), a CNAME to its name for
  every alias in the zone of a host named in the zone (the host's A and
  AAAA records instead at the apex, which cannot be a CNAME, and for a
  host named outside the zone, such as "db"), an NS record for each of
  ns, and the records given.  An alias of a host that has no address and
  no DNS name of its own has nothing to point at: P012 at the alias.  The
  serial is the date (YYYYMMDD00) or the old serial plus one, and changes
  only when a record does: a converged run writes nothing.  Both files
  are checked with named-checkzone and named-checkconf before they
  replace anything.  When they change and named runs, "dns zone ZONE
  reloaded" tells it: rndc reconfig for a zone new to named, rndc reload
  ZONE for a known one, then waits until named serves the serial
  written; a reload that fails is owed to the next run (prop-run(1),
  durable triggers).  A named that runs and does not serve the zone is
  not converged: the zone is loaded.  Uses service named (W106, P016).
  Verify: an SOA query for the zone, sent by prop to the target's port 53
  over TCP, is answered with authority and the serial of the zone file;
  otherwise a stopped named is started, a running one told of the zone
  again (rndc reconfig or reload) and the serial waited for, and the
  property is changed, or fails with what named answered.
  Defaults: soa.ns = the first of ns, soa.email = hostmaster@ZONE,
  ttl 3600, refresh 3600, retry 600, expire 1209600, minimum 3600.
  Example:
    dns.primary("example.com", { ns = { "ns1.example.com" },
                                 records = { { "@", "MX", "10 mail.example.com." } } })
]]
function dns.primary(zone, opts)
   local desc = "dns primary zone " .. (type(zone) == "string" and zone or "?")
   local zerr, z = check_dns_name(zone, "zone")
   local oerr, o = args.options(opts, {
      soa = function(v, what) return args.options(v, soa_schema, "soa") end,
      ns = function(v, what) return args.list(v, what, check_dns_name, { nonempty = true }) end,
      records = function(v, what) return args.list(v, what, check_record) end,
   }, "dns.primary")
   local msg = args.join("dns.primary", zerr, oerr)
   if not msg and o.ns == nil and (o.soa == nil or o.soa.ns == nil) then
      msg = "dns.primary: name the zone's name servers (ns = { \"ns1.example.com\" })"
   end
   if msg then return core.invalid(desc, msg) end
   local soa, s = {}, o.soa or {}
   soa.ns = s.ns or o.ns[1]
   soa.email = s.email or ("hostmaster@" .. z)
   soa.ttl, soa.refresh, soa.retry = s.ttl or 3600, s.refresh or 3600, s.retry or 600
   soa.expire, soa.minimum = s.expire or 1209600, s.minimum or 3600
   local stanza = fmt('zone "%s" {\n\ttype master;\n\tfile "%s";\n};\n', z, zone_file(z))
   local a = { kind = "primary", zone = z, soa = soa, ns = o.ns or { soa.ns },
               records = o.records or {}, stanza = stanza }
   local claims = { claim.file_generated(zone_file(z), "dns.primary " .. z),
                    claim.file_content(stanza_file(z), stanza),
                    claim.file_line(local_conf, include_line(z)),
                    claim.package_installed("bind9") }
   return core.props { server_leaf(), zone_leaf("primary", z, a, claims) }:describe(desc)
end

local function check_master(v, what)
   if type(v) == "string" and (v:find("^%d+%.%d+%.%d+%.%d+$") or v:find("^[%x:]+$")) then
      return nil, v
   end
   return fmt('%s must be the address of a primary server such as "192.0.2.53", got %s', what,
              args.got(v))
end

--[[ dns.secondary(zone, masters)
  DebianLike, port 53 (bind9).
  Claims: file.content /etc/bind/prop/ZONE.conf (a secondary stanza taking
  the zone from masters, a list of addresses), its include line in
  /etc/bind/named.conf.local, package bind9, service named.
  Example:
    dns.secondary("example.com", { "192.0.2.53" })
]]
function dns.secondary(zone, masters, opts)
   local desc = "dns secondary zone " .. (type(zone) == "string" and zone or "?")
   local zerr, z = check_dns_name(zone, "zone")
   local merr, m = args.list(masters, "masters", check_master, { nonempty = true })
   local msg = args.join("dns.secondary", zerr, merr, (args.options(opts, {}, "dns.secondary")))
   if msg then return core.invalid(desc, msg) end
   local stanza = fmt('zone "%s" {\n\ttype slave;\n\tmasters { %s; };\n\tfile "/var/cache/bind/db.%s";\n};\n',
                      z, concat(m, "; "), z)
   local a = { kind = "secondary", zone = z, stanza = stanza }
   local claims = { claim.file_content(stanza_file(z), stanza),
                    claim.file_line(local_conf, include_line(z)),
                    claim.package_installed("bind9") }
   return core.props { server_leaf(), zone_leaf("secondary", z, a, claims) }:describe(desc)
end

return args.strict_module(dns, "dns")
