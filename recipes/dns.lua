-- prop.dns: BIND zones made from the site.
--
-- A zone's A, AAAA and CNAME records come from what every host of the
-- site declares (ipv4, ipv6, alias), as Propellor's Dns module makes them,
-- plus the records given; the zone is written at run time, when the whole
-- site is known, and its serial changes only when its records do.  Two
-- hosts that give one name (a host name or an alias) are P013 in the
-- pre-pass, before any zone is written.  Typed records (MX, SRV, TXT,
-- CAA) are checked when the site is read, and once it is whole
-- (core.at_site_end) an MX, SRV or CNAME target in a zone of the site
-- must have an address in it, and a master named by its host be a host
-- with one (P012).  A signed zone (dnssec) is named's inline signing with
-- dnssec-policy default; the DS for the parent is read from its keys on
-- the target at run time.  A zone's revert removes its files and tells
-- named; bind9 stays.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local dns = {}

local fmt, concat = string.format, table.concat

local impl = { zone = {}, server = {}, reload = {}, removed = {} }

local zone_dir = "/etc/bind"
local conf_dir = "/etc/bind/prop"
local local_conf = "/etc/bind/named.conf.local"
-- A signed zone's files: named writes the signed copy beside the zone
-- file and its keys in the key directory, and Debian's named (user bind)
-- may write only under /var/lib/bind and /var/cache/bind.
local var_dir = "/var/lib/bind"
local keys_dir = var_dir .. "/keys"

local function zone_file(zone, signed) return (signed and var_dir or zone_dir) .. "/db." .. zone end
local function key_dir(zone) return keys_dir .. "/" .. zone end
local function secondary_file(zone) return "/var/cache/bind/db." .. zone end
local function stanza_file(zone) return conf_dir .. "/" .. zone .. ".conf" end
local function include_line(zone) return fmt('include "%s";', stanza_file(zone)) end

-- ---------------------------------------------------------------------
-- Run time.

local function absolute(name) return (name:gsub("%.?$", ".")) end

-- Every host of the site, containers too (a name server in a container).
local function all_hosts()
   local out, seen = {}, {}
   local function add(h)
      if seen[h.name] then return end
      seen[h.name], out[#out + 1] = true, h
      for _, c in ipairs(h.containers) do add(c) end
   end
   for _, h in ipairs(core.hosts()) do add(h) end
   return out
end

-- The addresses of the host of the site named name (its ipv4, then its
-- ipv6), nil when the site has no such host.
local function host_addresses(name)
   for _, h in ipairs(all_hosts()) do
      if h.name == name or h.short_name == name then
         local out = {}
         for _, a in ipairs(h:info "ipv4") do out[#out + 1] = a end
         for _, a in ipairs(h:info "ipv6") do out[#out + 1] = a end
         return out
      end
   end
   return nil
end

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
   local order = { NS = 1, MX = 2, A = 3, AAAA = 4, CNAME = 5, TXT = 6, CAA = 7, SRV = 8 }
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

-- The zone's stanza: given whole, or (a secondary whose masters are
-- hosts of the site) made now from the addresses those hosts declare.
local function stanza_of(a)
   if a.stanza then return a.stanza end
   local addrs = {}
   for _, m in ipairs(a.masters) do
      local got = m.host and host_addresses(m.host) or { m.address }
      if not got or #got == 0 then
         R.fail("dns.secondary %s: the master %s has no address in the site", a.zone, m.host)
      end
      for _, x in ipairs(got) do addrs[#addrs + 1] = x end
   end
   return fmt('zone "%s" {\n\ttype slave;\n\tmasters { %s; };\n\tfile "%s";\n};\n', a.zone,
              concat(addrs, "; "), secondary_file(a.zone))
end

-- A signed zone's key directory, which named (user bind) writes.
local function ensure_key_dir(sys, zone)
   local changed = false
   for _, d in ipairs({ keys_dir, key_dir(zone) }) do
      if not sys:exists(d) then
         sys:mkdir(d, { mode = tonumber("0750", 8), owner = "bind", group = "bind" })
         changed = true
      end
   end
   return changed
end

-- The DS records of a signed zone for its parent, from the key-signing
-- keys (flags 257) named made in its key directory (nil when none yet).
local function ds_records(sys, zone)
   local r = sys:query({ "find", key_dir(zone), "-maxdepth", "1", "-name", "K*.key" })
   if r.code ~= 0 then return nil end
   local out = {}
   for path in r.stdout:gmatch("[^\n]+") do
      local key = sys:read(path) or ""
      if key:find("%sDNSKEY%s+257%s") then
         local ds = sys:query({ "dnssec-dsfromkey", "-2", path })
         if ds.code ~= 0 then
            R.fail("dns.primary %s: dnssec-dsfromkey %s: %s", zone, path, R.tail(ds.stderr))
         end
         for line in ds.stdout:gmatch("[^\n]+") do out[#out + 1] = line end
      end
   end
   table.sort(out)
   return #out > 0 and out or nil
end

local function note_ds(sys, a)
   if not a.dnssec or sys.dry then return end
   local ds = ds_records(sys, a.zone)
   if not ds then
      sys:note("no key-signing key in " .. key_dir(a.zone) .. " yet: named makes it when it loads the zone")
      return
   end
   for _, line in ipairs(ds) do sys:note("DS for the parent zone: " .. line) end
end

-- The SOA of the zone from the target's port 53 (defined with the probe,
-- below): its serial and whether it came signed, or nil and why not.
local soa_probe

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
      local path = a.file
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
   if a.dnssec and ensure_key_dir(sys, a.zone) then changed = true end
   if ensure_stanza(sys, what, a.zone, stanza_of(a)) then changed = true end
   -- Files in place are not enough: a named that runs and does not serve
   -- the zone (never told of it) has yet to load it (the reload, on_change).
   if not changed and not R.no_daemons(sys) and not R.is_dir_tree(sys) and rndc_ok(sys)
      and zonestatus(sys, a.zone).code ~= 0 then
      sys:note("named runs but does not serve the zone: it is loaded")
      changed = true
   end
   -- A signed zone's DS: here when nothing changed (else after the reload,
   -- once named has signed the zone).
   if not changed then note_ds(sys, a) end
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
   local want = a.kind == "primary" and old_zone(sys, a.file) or nil
   -- named loads zones in the background: ask until it serves the one
   -- written (a few seconds at most), and signs a signed one (its first
   -- keys made: some seconds more).
   local r, served, signed
   for _ = 1, a.dnssec and 150 or 50 do
      r = zonestatus(sys, a.zone)
      served = r.code == 0 and tonumber(r.stdout:match("\nserial: (%d+)"))
      if r.code == 0 and (want == nil or served == want) then
         if not a.dnssec then return "changed" end
         local _, sig = soa_probe(sys, a.zone)
         signed = sig
         if sig then
            note_ds(sys, a)
            return "changed"
         end
      end
      sys:run({ "sleep", "0.2" })
   end
   if r.code == 0 and served == want and a.dnssec and not signed then
      R.fail("%s: named serves the zone unsigned (no RRSIG with its SOA):\n%s", what,
             R.tail(r.stdout))
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
-- authority, and a primary with the serial of its zone file; the query
-- asks for DNSSEC records (EDNS, DO), and a signed zone's SOA must come
-- with its RRSIG.

local QUERY_ID = 0x7072

local function soa_query(zone)
   local q = string.pack(">I2I2I2I2I2I2", QUERY_ID, 0, 1, 0, 0, 1)
   for label in zone:gmatch("[^.]+") do q = q .. string.pack("s1", label) end
   -- The question, then an OPT record: root name, type 41, a 4096-byte
   -- payload, the DO bit.
   local opt = "\0" .. string.pack(">I2I2I4I2", 41, 4096, 0x8000, 0)
   return string.pack(">s2", q .. "\0" .. string.pack(">I2I2", 6, 1) .. opt)
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
-- it) and whether an RRSIG came with it, or nil and what was wrong.
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
   local serial, signed = nil, false
   for _ = 1, an do
      pos = skip_name(msg, pos)
      if not pos or pos + 10 > #msg + 1 then return nil, "a malformed answer" end
      local rtype, _, _, rdlen = string.unpack(">I2I2I4I2", msg, pos)
      pos = pos + 10
      if rtype == 6 and not serial then
         local p = skip_name(msg, pos)
         p = p and skip_name(msg, p)
         if not p or p + 4 > #msg + 1 then return nil, "a malformed SOA record" end
         serial = string.unpack(">I4", msg, p)
      elseif rtype == 46 then
         signed = true
      end
      pos = pos + rdlen
   end
   if not serial then return nil, "no SOA record in the answer" end
   return serial, signed
end

-- Nothing to ask in a tree or where no daemon runs; a zone file that
-- has just changed is its reload's business (on_change: it waits until
-- named serves the serial written, and a failed one is owed).
function soa_probe(sys, zone)
   local ans, why = sys:tcp { port = 53, send = soa_query(zone), framing = "len16", timeout = 2 }
   if not ans then return nil, why end
   return soa_serial(ans)
end

function impl.zone.verify(sys, a, changed)
   if changed or R.is_dir_tree(sys) or R.no_daemons(sys) then return true end
   local serial, signed = soa_probe(sys, a.zone)
   if not serial then return false, fmt("SOA %s from port 53: %s", a.zone, signed) end
   if a.kind == "primary" then
      -- A signed zone's serial is named's own (the signer's), from the
      -- zone file's on.
      local want = old_zone(sys, a.file)
      if want and (a.dnssec and serial < want or not a.dnssec and serial ~= want) then
         return false, fmt("SOA %s from port 53: named serves serial %d, the zone file has %d",
                           a.zone, serial, want)
      end
   end
   if a.dnssec and not signed then
      return false, fmt("SOA %s from port 53: no RRSIG with it: named serves the zone unsigned",
                        a.zone)
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
   impl.reload.ensure(sys, a)
end

-- ---------------------------------------------------------------------
-- The revert: the zone's files gone and named told, bind9 left alone.

-- The files named makes beside a zone file (a signed zone's copy, the
-- journals).
local beside = { "", ".jnl", ".jbk", ".signed", ".signed.jnl" }

function impl.removed.ensure(sys, a)
   local what = fmt("dns %s zone %s removed", a.kind, a.zone)
   local changed = false
   for _, path in ipairs(a.files) do
      for _, ext in ipairs(beside) do
         if sys:stat(path .. ext) then
            sys:remove(path .. ext)
            changed = true
         end
      end
   end
   if sys:exists(key_dir(a.zone)) then
      local r = R.query(sys, what, { "find", key_dir(a.zone), "-mindepth", "1", "-maxdepth", "1" })
      for path in r.stdout:gmatch("[^\n]+") do sys:remove(path) end
      sys:remove(key_dir(a.zone))
      changed = true
   end
   if R.ensure_no_lines(sys, what, local_conf, { include_line(a.zone) }) then changed = true end
   if sys:stat(stanza_file(a.zone)) then
      sys:remove(stanza_file(a.zone))
      changed = true
   end
   if R.no_daemons(sys) or R.is_dir_tree(sys) or not rndc_ok(sys) then
      return changed and "changed" or "ok"
   end
   -- named forgets a zone that named.conf no longer has on rndc reconfig.
   if zonestatus(sys, a.zone).code == 0 then
      if sys.dry then
         sys:note("would tell named to forget the zone (rndc reconfig)")
         return "changed"
      end
      R.run(sys, what, { "rndc", "reconfig" })
      local r = zonestatus(sys, a.zone)
      for _ = 1, 50 do
         if r.code ~= 0 then break end
         sys:run({ "sleep", "0.2" })
         r = zonestatus(sys, a.zone)
      end
      if r.code == 0 then
         R.fail("%s: named still serves the zone after rndc reconfig (is it in another "
                .. "file of its configuration?)", what)
      end
      sys:note("rndc reconfig: named no longer serves the zone")
      changed = true
   end
   return changed and "changed" or "ok"
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

-- A TXT record's text as strings of at most 255 bytes each, quoted, with
-- '"', '\' and bytes outside printable ASCII escaped (\DDD).
local function txt_rdata(text)
   local parts = {}
   for i = 1, math.max(#text, 1), 255 do
      local chunk = text:sub(i, i + 254):gsub('[%c"\\\128-\255]', function(c)
         if c == '"' or c == "\\" then return "\\" .. c end
         return fmt("\\%03d", c:byte())
      end)
      parts[#parts + 1] = '"' .. chunk .. '"'
   end
   return concat(parts, " ")
end

local function integer_in(v, lo, hi)
   local n = math.tointeger(v)
   if n == nil and type(v) == "string" and v:find("^%d+$") then n = math.tointeger(tonumber(v)) end
   return n and n >= lo and n <= hi and n or nil
end

-- A target (MX, SRV, CNAME): a DNS name, absolute with its final dot, or
-- relative to the zone without it ("." is the null MX or SRV).
local function check_target(v, what, typed)
   if v == "." then return nil, "." end
   local err = check_dns_name(v, what)
   if err then return err end
   -- The typed forms take full names: the final dot is optional there.
   if typed and v:sub(-1) ~= "." then v = v .. "." end
   return nil, v
end

local caa_tags = { issue = true, issuewild = true, iodef = true }

-- The record checks by type: from the fields after { name, type }, the
-- record's text (rdata) and its target, or an error.  A field list of one
-- string is the record's text as a zone file writes it (the older form,
-- "10 mail.example.com."): it is parsed into the same fields.
local typed = {}

function typed.MX(f, what, str)
   if str then f = { str:match("^(%S+)%s+(%S+)$") } end
   if #f ~= 2 then
      return fmt('%s: an MX record is { name, "MX", preference, target } such as '
                 .. '{ "@", "MX", 10, "mail.example.com." }', what)
   end
   local pref = integer_in(f[1], 0, 65535)
   if not pref then return fmt("%s: the MX preference must be an integer in 0..65535, got %s", what, args.got(f[1])) end
   local err, t = check_target(f[2], what .. ": the MX target", not str)
   if err then return err end
   return nil, fmt("%d %s", pref, t), t
end

function typed.SRV(f, what, str, name)
   if str then f = { str:match("^(%S+)%s+(%S+)%s+(%S+)%s+(%S+)$") } end
   if #f ~= 4 then
      return fmt('%s: an SRV record is { "_service._proto", "SRV", priority, weight, port, target } '
                 .. 'such as { "_sip._tcp", "SRV", 10, 5, 5060, "sip.example.com." }', what)
   end
   if not name:find("^_[%w-]+%._[%w-]+") then
      return fmt('%s: an SRV record\'s name must start with _service._proto, such as "_sip._tcp", got %s',
                 what, args.show(name))
   end
   local nums = {}
   for k, field in ipairs({ "priority", "weight", "port" }) do
      nums[k] = integer_in(f[k], 0, 65535)
      if not nums[k] then
         return fmt("%s: the SRV %s must be an integer in 0..65535, got %s", what, field, args.got(f[k]))
      end
   end
   local err, t = check_target(f[4], what .. ": the SRV target", not str)
   if err then return err end
   return nil, fmt("%d %d %d %s", nums[1], nums[2], nums[3], t), t
end

function typed.CAA(f, what, str)
   if str then
      local flags, tag, value = str:match('^(%S+)%s+(%S+)%s+"([^"]*)"$')
      f = flags and { flags, tag, value } or {}
   end
   if #f ~= 3 then
      return fmt('%s: a CAA record is { name, "CAA", flags, tag, value } such as '
                 .. '{ "@", "CAA", 0, "issue", "letsencrypt.org" }', what)
   end
   local flags = integer_in(f[1], 0, 255)
   if not flags then return fmt("%s: the CAA flags must be an integer in 0..255, got %s", what, args.got(f[1])) end
   if type(f[2]) ~= "string" or not caa_tags[f[2]] then
      return fmt("%s: the CAA tag must be issue, issuewild or iodef, got %s%s", what, args.got(f[2]),
                 type(f[2]) == "string" and args.did_you_mean(f[2]:lower(), caa_tags) or "")
   end
   if type(f[3]) ~= "string" or f[3]:find('[%c"]') then
      return fmt("%s: the CAA value must be one line of text without '\"', got %s", what, args.got(f[3]))
   end
   return nil, fmt('%d %s "%s"', flags, f[2], f[3])
end

function typed.TXT(f, what, str)
   if str then
      if str:find('^".*"$') then return nil, str end
      f = { str }
   end
   if #f == 0 then return fmt('%s: a TXT record is { name, "TXT", text, ... }', what) end
   local out = {}
   for k, t in ipairs(f) do
      if type(t) ~= "string" then
         return fmt("%s: the TXT text must be a string, got %s", what, args.got(f[k]))
      end
      out[#out + 1] = txt_rdata(t)
   end
   return nil, concat(out, " ")
end

function typed.CNAME(f, what, str)
   if #f ~= 1 or (not str and type(f[1]) ~= "string") then
      return fmt('%s: a CNAME record is { name, "CNAME", target }', what)
   end
   local err, t = check_target(f[1], what .. ": the CNAME target", false)
   if err then return err end
   return nil, t, t
end

function typed.A(f, what)
   local a = #f == 1 and type(f[1]) == "string" and { f[1]:match("^(%d+)%.(%d+)%.(%d+)%.(%d+)$") } or {}
   for k = 1, 4 do
      if not integer_in(a[k], 0, 255) then
         return fmt('%s: an A record\'s value must be an IPv4 address such as "192.0.2.10", got %s',
                    what, args.got(f[1]))
      end
   end
   return nil, f[1]
end

function typed.AAAA(f, what)
   if #f ~= 1 or type(f[1]) ~= "string" or not f[1]:find("^[%x:.]+$") or not f[1]:find(":") then
      return fmt('%s: an AAAA record\'s value must be an IPv6 address such as "2001:db8::10", got %s',
                 what, args.got(f[1]))
   end
   return nil, f[1]
end

-- A record: { name, type, fields... }.  Returns { name, type, rdata,
-- target = the target as written (MX, SRV, CNAME) }.
local function check_record(v, what)
   if type(v) ~= "table" or #v < 3 then
      return fmt('%s must be { name, type, value... } such as { "www", "CNAME", "web1.example.com." } '
                 .. 'or { "@", "MX", 10, "mail.example.com." }, got %s', what, args.got(v))
   end
   local name, rtype = v[1], v[2]
   if type(name) ~= "string" or not (name == "@" or name:find("^[%w_*-][%w_.-]*$")) then
      return fmt('%s: the name %s is not "@" or a name in the zone', what, args.got(name))
   end
   if type(rtype) ~= "string" or not record_types[rtype] then
      return fmt("%s: the type %s is not one of A AAAA CNAME MX TXT NS SRV CAA PTR%s", what,
                 args.got(rtype), type(rtype) == "string" and args.did_you_mean(rtype:upper(), record_types) or "")
   end
   local fields = { table.unpack(v, 3) }
   for k, f in ipairs(fields) do
      if type(f) == "string" and (f == "" or f:find("[\n\r]")) then
         return fmt("%s: field %d must be one line of text, got %s", what, k + 2, args.got(f))
      elseif type(f) ~= "string" and not math.tointeger(f) then
         return fmt("%s: field %d must be a string or an integer, got %s", what, k + 2, args.got(f))
      end
   end
   local check = typed[rtype]
   if not check then
      -- NS, PTR: the value as written.
      if #fields ~= 1 or type(fields[1]) ~= "string" then
         return fmt("%s: the value must be one line of text, got %s", what, args.got(fields[1]))
      end
      return nil, { name, rtype, fields[1] }
   end
   local str = #fields == 1 and type(fields[1]) == "string" and rtype ~= "A" and rtype ~= "AAAA"
      and rtype ~= "CNAME" and fields[1] or nil
   local err, rdata, target = check(fields, what, str, name)
   if err then return err end
   return nil, { name, rtype, rdata, target = target }
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
local function zone_leaf(kind, zone, a, claims, info, desc)
   local uses = { services = { "named" } }
   local reload = core.leaf{ desc = fmt("dns zone %s reloaded", zone), targets = "DebianLike",
                             impl = impl.reload,
                             args = { kind = kind, zone = zone, file = a.file, dnssec = a.dnssec },
                             norevert = "a reload has nothing to revert", uses = uses }
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl.zone, args = a,
                     claims = claims, info = info,
                     norevert = fmt("dns.%s has no revert action", kind), uses = uses }:on_change(reload)
end

-- The revert of a zone: its files, stanza and include line removed, and
-- named told; bind9 stays.
local function removed_leaf(kind, zone, files, signed)
   local claims = { claim.file_absent(stanza_file(zone)), claim.file_noline(local_conf, include_line(zone)) }
   for _, f in ipairs(files) do
      for _, ext in ipairs(beside) do claims[#claims + 1] = claim.file_absent(f .. ext) end
   end
   if signed then claims[#claims + 1] = claim.file_absent(key_dir(zone)) end
   return core.leaf{ desc = fmt("dns %s zone %s removed", kind, zone), targets = "DebianLike",
                     impl = impl.removed, args = { kind = kind, zone = zone, files = files },
                     claims = claims,
                     norevert = fmt("the removal of a zone has no revert action: dns.%s makes it", kind) }
end

--[[ dns.primary(zone, { soa = { ns=, email=, ttl=, refresh=, retry=, expire=, minimum= },
                        ns = { names }, records = { record, ... }, dnssec = false })
  DebianLike, port 53 (bind9); revertable.
  Claims: file.generated /etc/bind/db.ZONE (/var/lib/bind/db.ZONE when
  signed, and file.directory /var/lib/bind/keys and
  /var/lib/bind/keys/ZONE), file.content of its stanza /etc/bind/prop/ZONE.conf, the line
  include "/etc/bind/prop/ZONE.conf"; of /etc/bind/named.conf.local,
  package bind9, service named.
  The zone holds an A and AAAA record for every host of the site whose
  name is in the zone (from its ipv4 and ipv6), a CNAME to its name for
  every alias in the zone of a host named in the zone (the host's A and
  AAAA records instead at the apex, which cannot be a CNAME, and for a
  host named outside the zone, such as "db"), an NS record for each of
  ns, and the records given.  A record is { name, type, fields... }:
    { "www", "CNAME", "web1.example.com." }   { "ftp", "A", "192.0.2.21" }
    { "@", "MX", 10, "mail.example.com." }     { "@", "TXT", "v=spf1 -all" }
    { "_sip._tcp", "SRV", 10, 5, 5060, "sip.example.com." }
    { "@", "CAA", 0, "issue", "letsencrypt.org" }
  (the typed fields may also be given as one string, as a zone file
  writes them: { "@", "MX", "10 mail.example.com." }).  A TXT text is
  quoted and split into strings of 255 bytes.  An MX, SRV or CNAME target
  that is a name in a zone of the site (any dns.primary of any host) must
  have an address there (a host of that name or alias with ipv4/ipv6, or
  an A or AAAA record): P012 otherwise.  An alias of a host that has no
  address and no DNS name of its own has nothing to point at: P012 at the
  alias.  The serial is the date (YYYYMMDD00) or the old serial plus one,
  and changes only when a record does.  Both files are checked with
  named-checkzone and named-checkconf before they replace anything.  When
  they change and named runs, "dns zone ZONE reloaded" tells it.
  dnssec = true signs the zone: dnssec-policy default with inline
  signing, its keys in /var/lib/bind/keys/ZONE; each run notes the DS
  record for the parent (dnssec-dsfromkey on the key-signing key).
  Verify: an SOA query for the zone from port 53 is answered with
  authority and the serial of the zone file (with an RRSIG when signed).
  Revert: the zone file, the stanza, the include line (and the keys and
  named's signed copy and journals) removed, named told (rndc reconfig);
  bind9 stays.
  Example:
    dns.primary("example.com", { ns = { "ns1.example.com" }, dnssec = true,
                                 records = { { "@", "MX", 10, "mail.example.com." } } })
]]
function dns.primary(zone, opts)
   local desc = "dns primary zone " .. (type(zone) == "string" and zone or "?")
   local zerr, z = check_dns_name(zone, "zone")
   local oerr, o = args.options(opts, {
      soa = function(v, what) return args.options(v, soa_schema, "soa") end,
      ns = function(v, what) return args.list(v, what, check_dns_name, { nonempty = true }) end,
      records = function(v, what) return args.list(v, what, check_record) end,
      dnssec = args.boolean,
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
   local signed = o.dnssec == true
   local file = zone_file(z, signed)
   local stanza
   if signed then
      stanza = fmt('zone "%s" {\n\ttype master;\n\tfile "%s";\n\tdnssec-policy default;\n'
                   .. '\tinline-signing yes;\n\tkey-directory "%s";\n};\n', z, file, key_dir(z))
   else
      stanza = fmt('zone "%s" {\n\ttype master;\n\tfile "%s";\n};\n', z, file)
   end
   -- What the whole site's check (at its end) reads: the zone, the names
   -- its records give addresses, the targets that need one.
   local info = { "dns.zone", z }
   local records = {}
   for _, r in ipairs(o.records or {}) do
      records[#records + 1] = { r[1], r[2], r[3] }
      local owner = r[1] == "@" and z or r[1]:sub(-1) == "." and r[1]:sub(1, -2) or (r[1] .. "." .. z)
      if r[2] == "A" or r[2] == "AAAA" then
         info[#info + 1], info[#info + 2] = "dns.address", owner:lower()
      elseif r.target and r.target ~= "." then
         local t = r.target:sub(-1) == "." and r.target:sub(1, -2) or (r.target .. "." .. z)
         info[#info + 1], info[#info + 2] = "dns.target", r[2] .. " " .. t:lower()
      end
   end
   local a = { kind = "primary", zone = z, soa = soa, ns = o.ns or { soa.ns }, records = records,
               stanza = stanza, file = file, dnssec = signed }
   local claims = { claim.file_generated(file, "dns.primary " .. z),
                    claim.file_content(stanza_file(z), stanza),
                    claim.file_line(local_conf, include_line(z)),
                    claim.package_installed("bind9") }
   if signed then
      claims[#claims + 1] = claim.file_directory(keys_dir)
      claims[#claims + 1] = claim.file_directory(key_dir(z))
   end
   -- What prop show can say of the DS without the target: where it comes from.
   local zdesc = signed and fmt("dns primary zone %s, signed (its DS: noted by prop run, "
                                .. "from dnssec-dsfromkey on the target)", z) or desc
   local zone_props = core.props { server_leaf(), zone_leaf("primary", z, a, claims, info, zdesc) }
   return core.revertable(zone_props, removed_leaf("primary", z, { file }, signed)):describe(desc)
end

-- A master: an address, or the name of a host of the site (its ipv4 and
-- ipv6 addresses, when the stanza is written).
local function check_master(v, what)
   if type(v) == "string" and (v:find("^%d+%.%d+%.%d+%.%d+$") or (v:find("^[%x:]+$") and v:find(":"))) then
      return nil, { address = v }
   end
   if type(v) == "string" and not check_dns_name(v, what) then return nil, { host = v } end
   return fmt('%s must be the address of a primary server such as "192.0.2.53", or the name of '
              .. 'a host of the site, got %s', what, args.got(v))
end

--[[ dns.secondary(zone, masters)
  DebianLike, port 53 (bind9); revertable.
  Claims: /etc/bind/prop/ZONE.conf (a secondary stanza taking the zone
  from masters: file.content when they are addresses, file.generated
  when some are hosts of the site), its include line in
  /etc/bind/named.conf.local, package bind9, service named.
  masters: addresses, or names of hosts of the site (their ipv4 and ipv6
  addresses); a name that is no host of the site, or a host without an
  address, is P012.
  Revert: the stanza, the include line and the zone's copy
  /var/cache/bind/db.ZONE removed, named told; bind9 stays.
  Example:
    dns.secondary("example.com", { "ns1.example.com" })
    dns.secondary("example.com", { "192.0.2.53" })
]]
function dns.secondary(zone, masters, opts)
   local desc = "dns secondary zone " .. (type(zone) == "string" and zone or "?")
   local zerr, z = check_dns_name(zone, "zone")
   local merr, m = args.list(masters, "masters", check_master, { nonempty = true })
   local msg = args.join("dns.secondary", zerr, merr, (args.options(opts, {}, "dns.secondary")))
   if msg then return core.invalid(desc, msg) end
   local info, addrs = {}, {}
   for _, x in ipairs(m) do
      if x.host then
         info[#info + 1], info[#info + 2] = "dns.master", x.host
      else
         addrs[#addrs + 1] = x.address
      end
   end
   local a = { kind = "secondary", zone = z, masters = m }
   local stanza_claim
   if #info == 0 then
      a.stanza = fmt('zone "%s" {\n\ttype slave;\n\tmasters { %s; };\n\tfile "%s";\n};\n',
                     z, concat(addrs, "; "), secondary_file(z))
      stanza_claim = claim.file_content(stanza_file(z), a.stanza)
   else
      stanza_claim = claim.file_generated(stanza_file(z), "dns.secondary " .. z)
   end
   local claims = { stanza_claim, claim.file_line(local_conf, include_line(z)),
                    claim.package_installed("bind9") }
   local zone_props = core.props { server_leaf(),
                                   zone_leaf("secondary", z, a, claims, #info > 0 and info or nil, desc) }
   return core.revertable(zone_props, removed_leaf("secondary", z, { secondary_file(z) })):describe(desc)
end

-- ---------------------------------------------------------------------
-- The whole site's check, once every host is declared: an MX, SRV or
-- CNAME target in a zone of the site has an address there; a master
-- named by its host is a host of the site with an address.

local function zone_nodes()
   local out = {}
   local function walk(p, depth)
      if depth > 64 or p.kind == "revert" or p.kind == "invalid" then return end
      local d = p.desc
      if p.kind ~= "property" and (d:find("^dns primary zone ") or d:find("^dns secondary zone ")) then
         out[#out + 1] = p
         return
      end
      if p.kind ~= "property" and p.kind ~= "info" then
         for _, c in ipairs(p.children) do walk(c, depth + 1) end
      end
   end
   for _, h in ipairs(all_hosts()) do
      for _, p in ipairs(h.properties) do walk(p, 0) end
   end
   return out
end

local function check_site()
   local nodes = zone_nodes()
   if #nodes == 0 then return end
   local zones, named = {}, {}
   local function has_address(n) named[n] = true end
   for _, p in ipairs(nodes) do
      local info = p.info
      for _, z in ipairs(info["dns.zone"] or {}) do zones[#zones + 1] = z end
      for _, n in ipairs(info["dns.address"] or {}) do has_address(n) end
   end
   for _, h in ipairs(all_hosts()) do
      if #h:info "ipv4" > 0 or #h:info "ipv6" > 0 then
         has_address(h.name:lower())
         for _, al in ipairs(h:info "alias") do has_address(al:lower()) end
      end
   end
   local function in_site(n)
      for _, z in ipairs(zones) do
         if in_zone(n, z) then return z end
      end
      return nil
   end
   for _, p in ipairs(nodes) do
      local info = p.info
      for _, t in ipairs(info["dns.target"] or {}) do
         local rtype, n = t:match("^(%S+) (.*)$")
         local z = in_site(n)
         if z and not named[n] then
            core.error_at(p, "P012", fmt("%s: the %s target %s has no address in the site: it is in "
                                         .. "zone %s, but no host of that name or alias has an ipv4 "
                                         .. "or ipv6, and no A or AAAA record gives it one",
                                         p.desc, rtype, n, z))
         end
      end
      for _, name in ipairs(info["dns.master"] or {}) do
         local addrs = host_addresses(name)
         if not addrs then
            core.error_at(p, "P012", fmt('%s: the master %s is not a host of the site (give its '
                                         .. 'address, or declare host "%s")', p.desc, name, name))
         elseif #addrs == 0 then
            core.error_at(p, "P012", fmt('%s: the master %s has no address (give host "%s" its '
                                         .. 'ipv4 or ipv6)', p.desc, name, name))
         end
      end
   end
end
core.at_site_end(check_site)

return args.strict_module(dns, "dns")
