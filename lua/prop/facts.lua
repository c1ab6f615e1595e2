-- prop.facts: what a target says about itself at run time (sys.facts).
--
-- Gathered once per host per run, on first use of sys.facts (bindings/
-- lsys.c calls gather and keeps the table with the host's `sys`): one
-- shell command, run through the transport like any sys:query (on this
-- machine, over SSH, inside a container), prints every fact as a
-- "key=value" line; it is parsed here.  A connect.dir tree runs no
-- command: its facts are what its files say (/etc/os-release), the rest
-- is absent.  The table and the tables in it are read-only.
--
-- Fields (man/prop-site.5, "Facts"): os_id, os_like, os_release,
-- os_codename, os_name, system, kernel, arch, dpkg_arch, cpus, memory,
-- hostname, fqdn, ipv4, ipv6, interfaces, onion, init, container, tree.

local M = {}

-- Every line of output is "key=value"; values never hold a newline.
-- Commands that may be missing are tried with `command -v`, and their
-- errors dropped: a fact that cannot be known is left out, never an error.
-- `ip route get` only asks the kernel's routing table which source
-- address a packet to that address would leave from; nothing is sent.
M.script = [=[
exec 2>/dev/null
PATH="$PATH:/usr/sbin:/sbin:/usr/bin:/bin"
f=
if [ -r /etc/os-release ]; then f=/etc/os-release; elif [ -r /usr/lib/os-release ]; then f=/usr/lib/os-release; fi
if [ -n "$f" ]; then sed -n 's/^\([A-Z_][A-Z0-9_]*\)=/os.\1=/p' "$f"; fi
printf 'system=%s\n' "$(uname -s)"
printf 'kernel=%s\n' "$(uname -r)"
printf 'arch=%s\n' "$(uname -m)"
if command -v dpkg >/dev/null; then a=$(dpkg --print-architecture) && printf 'dpkg_arch=%s\n' "$a"; fi
n=$(nproc) || n=$(getconf _NPROCESSORS_ONLN) || n=$(getconf NPROCESSORS_ONLN) || n=
printf 'cpus=%s\n' "$n"
if [ -r /proc/meminfo ]; then
  sed -n 's/^MemTotal:[ 	]*\([0-9][0-9]*\) kB.*/memory_kb=\1/p' /proc/meminfo
else
  m=$(sysctl -n hw.physmem) && printf 'memory=%s\n' "$m"
fi
h=$(hostname) || h=$(uname -n)
printf 'hostname=%s\n' "$h"
if command -v timeout >/dev/null; then q=$(timeout 10 hostname -f); else q=$(hostname -f); fi && printf 'fqdn=%s\n' "$q"
if command -v ip >/dev/null; then
  ip -4 route get 192.0.2.1 | sed -n 's/.* src \([^ ]*\).*/ipv4=\1/p' | head -n 1
  ip -6 route get 2001:db8::1 | sed -n 's/.* src \([^ ]*\).*/ipv6=\1/p' | head -n 1
  ip -o link show | sed -n 's/^[0-9][0-9]*: \([^:@ ]*\)[:@].*/if=\1/p'
  ip -o addr show | sed -n 's/^[0-9][0-9]*: \([^ ]*\) *\(inet6*\) \([^ ]*\).*/addr=\1 \2 \3/p'
elif [ -d /sys/class/net ]; then
  for i in /sys/class/net/*; do [ -e "$i" ] && printf 'if=%s\n' "${i##*/}"; done
elif [ "$(uname -s)" = FreeBSD ]; then
  for i in $(ifconfig -l); do printf 'if=%s\n' "$i"; done
fi
for d in /var/lib/tor/*/; do
  [ -s "${d}hostname" ] && printf 'onion=%s %s\n' "$(basename "$d")" "$(head -n 1 "${d}hostname")"
done
if [ -d /run/systemd/system ]; then echo init=systemd
elif [ "$(uname -s)" = FreeBSD ]; then echo init=rc.d
else echo init=sysv; fi
c=
if command -v systemd-detect-virt >/dev/null; then
  c=$(systemd-detect-virt -c) || c=
  [ "$c" = none ] && c=
  if [ -z "$c" ] && systemd-detect-virt -r; then c=chroot; fi
fi
if [ -z "$c" ] && [ -e /.dockerenv ]; then c=docker; fi
if [ -z "$c" ] && [ -e /run/.containerenv ]; then c=podman; fi
if [ -z "$c" ] && [ -r /proc/1/environ ]; then
  c=$(tr '\0' '\n' </proc/1/environ | sed -n 's/^container=//p' | head -n 1)
fi
if [ -z "$c" ] && [ "$(sysctl -n security.jail.jailed)" = 1 ]; then c=jail; fi
printf 'container=%s\n' "$c"
exit 0
]=]

-- A value of os-release: unquoted as the shell would ("..." with \"
-- \\ \$ \` escapes, or '...').
local function unquote(v)
   v = v:gsub("%s+$", "")
   local q = v:sub(1, 1)
   if q == '"' and v:sub(-1) == '"' and #v >= 2 then
      return (v:sub(2, -2):gsub('\\([\\"$`])', "%1"))
   elseif q == "'" and v:sub(-1) == "'" and #v >= 2 then
      return v:sub(2, -2)
   end
   return v
end

-- The facts from os-release's variables (a table NAME -> value).
local function from_os_release(f, os)
   if os.ID and os.ID ~= "" then f.os_id = os.ID:lower() end
   if os.ID_LIKE and os.ID_LIKE ~= "" then
      local like = {}
      for w in os.ID_LIKE:gmatch("%S+") do like[#like + 1] = w:lower() end
      f.os_like = like
   end
   if os.VERSION_ID and os.VERSION_ID ~= "" then f.os_release = os.VERSION_ID end
   local code = os.VERSION_CODENAME
   if code == nil or code == "" then code = os.UBUNTU_CODENAME end
   if (code == nil or code == "") and os.VERSION then code = os.VERSION:match("%(([%w%-]+)%)") end
   if code and code ~= "" then f.os_codename = code:lower() end
   local name = os.PRETTY_NAME
   if name == nil or name == "" then name = os.NAME end
   if name and name ~= "" then f.os_name = name end
end

local function parse_os_release(text)
   local os = {}
   for k, v in (text or ""):gmatch("([A-Z_][A-Z0-9_]*)=([^\n]*)") do os[k] = unquote(v) end
   return os
end

-- The facts table from the script's output.
function M.parse(out)
   local f, os, ifaces, order = {}, {}, {}, {}
   local function iface(name)
      local i = ifaces[name]
      if not i then
         i = { name = name, ipv4 = {}, ipv6 = {} }
         ifaces[name] = i
         order[#order + 1] = name
      end
      return i
   end
   for line in out:gmatch("[^\n]+") do
      local k, v = line:match("^([%w_.]+)=(.*)$")
      if k == nil then
         -- not a fact (a login script's chatter): ignored
      elseif k:sub(1, 3) == "os." then
         os[k:sub(4)] = unquote(v)
      elseif v == "" then
         -- unknown: left out
      elseif k == "cpus" then
         f.cpus = math.tointeger(tonumber(v))
      elseif k == "memory_kb" then
         local n = math.tointeger(tonumber(v))
         f.memory = n and n * 1024
      elseif k == "memory" then
         f.memory = math.tointeger(tonumber(v))
      elseif k == "if" then
         iface((v:gsub("@.*", "")))
      elseif k == "onion" then
         -- A tor onion service: its directory's name and address.
         local name, addr = v:match("^(%S+) (%S+%.onion)$")
         if name then
            f.onion = f.onion or {}
            f.onion[name] = addr
         end
      elseif k == "addr" then
         local name, fam, addr = v:match("^(%S+) (%S+) (%S+)$")
         if name then
            local i = iface((name:gsub("@.*", "")))
            local list = fam == "inet6" and i.ipv6 or i.ipv4
            list[#list + 1] = addr
         end
      elseif k == "system" or k == "kernel" or k == "arch" or k == "dpkg_arch"
         or k == "hostname" or k == "fqdn" or k == "ipv4" or k == "ipv6" or k == "init"
         or k == "container" then
         f[k] = v
      end
   end
   from_os_release(f, os)
   if #order > 0 then
      table.sort(order)
      f.interfaces = ifaces
      f.interface_names = order
   end
   return f
end

-- A read-only view of t (and of the tables in it); lookup, if given,
-- answers the keys t does not have (the site's facts).
local function frozen(t, lookup)
   local view = {}
   for k, v in pairs(t) do
      if type(v) == "table" then t[k] = frozen(v) end
   end
   local index = t
   if lookup then
      index = function(_, k)
         local v = t[k]
         if v ~= nil then return v end
         return lookup(k)
      end
   end
   return setmetatable(view, {
      __index = index,
      __newindex = function(_, k)
         error(string.format("sys.facts is read-only (setting %s): keep your own values "
                             .. "in sys.cache or a local", tostring(k)), 2)
      end,
      __pairs = function() return next, t, nil end,
      __len = function() return #t end,
      __metatable = false,
   })
end
M.frozen = frozen

-- ---------------------------------------------------------------------
-- Facts the site defines: fact "name" { cmd = {...}, parse = f }.

-- The built-in fields, which a site's fact may not shadow.
M.builtin = {}
for _, k in ipairs { "os_id", "os_like", "os_release", "os_codename", "os_name", "system",
                     "kernel", "arch", "dpkg_arch", "cpus", "memory", "hostname", "fqdn",
                     "ipv4", "ipv6", "interfaces", "interface_names", "onion", "init",
                     "container", "tree" } do
   M.builtin[k] = true
end

-- name -> { name =, cmd =, parse =, origin = "FILE:LINE" }, in this state
-- (one per evaluation of the site), and the names in the order defined.
M.defined, M.defined_order = {}, {}

local args_mod
local function argcheck() args_mod = args_mod or require "prop.args"; return args_mod end

-- Checks and keeps a fact's definition; returns nil, or the message of
-- what is wrong (the caller raises it at the site's line).
function M.define(name, def, origin)
   local a = argcheck()
   if type(name) ~= "string" or not name:find("^[%a_][%w_]*$") then
      return string.format('fact: the name must be a word such as "nginx_version" '
                           .. '(letters, digits, _), got %s', a.got(name))
   end
   local what = string.format('fact "%s"', name)
   if M.builtin[name] then
      return string.format("%s: sys.facts.%s is a built-in fact; name yours otherwise", what, name)
   end
   local old = M.defined[name]
   if old then
      return string.format("%s is defined twice (first at %s)", what, old.origin)
   end
   if type(def) ~= "table" or getmetatable(def) ~= nil then
      return string.format('%s: the definition must be a table { cmd = { "prog", "arg" }, '
                           .. "parse = function(out, err) ... end }, got %s", what, a.got(def))
   end
   local errs = {}
   for k in pairs(def) do
      if k ~= "cmd" and k ~= "file" and k ~= "parse" then
         local hint = type(k) == "string" and a.did_you_mean(k, { "cmd", "file", "parse" }) or ""
         errs[#errs + 1] = string.format('unknown key "%s"%s', tostring(k),
                                         hint ~= "" and hint or " (expected cmd, file, parse)")
      end
   end
   table.sort(errs)
   local argv, path, err
   if def.cmd ~= nil and def.file ~= nil then
      errs[#errs + 1] = "give cmd (a command whose output is read) or file (a file read), not both"
   elseif def.file ~= nil then
      err, path = a.abs_path(def.file, "file")
   else
      err, argv = a.argv(def.cmd, "cmd")
      if def.cmd == nil then
         err = 'cmd = { "prog", "arg", ... } (a command run on the target) or file = "/path" '
            .. "(a file read there) is needed"
      end
   end
   if err then errs[#errs + 1] = err end
   if def.parse ~= nil and type(def.parse) ~= "function" then
      errs[#errs + 1] = string.format("parse must be a function(out, err) returning the fact's "
                                      .. "value, got %s", a.got(def.parse))
   end
   if #errs > 0 then return what .. ": " .. table.concat(errs, "; ") end
   M.defined[name] = { name = name, cmd = argv, file = path, parse = def.parse, origin = origin }
   M.defined_order[#M.defined_order + 1] = name
   return nil
end

local function argv_shown(argv) return argcheck().shell_join(argv) end

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

-- What a parse function returned, read-only.
local function checked_value(where, v)
   local t = type(v)
   if t == "function" or t == "userdata" or t == "thread" then
      error(string.format("%s: its parse function returned a %s; a fact is a string, number, "
                          .. "boolean or table", where, t), 0)
   end
   if t == "table" then v = frozen(v) end
   return v
end

-- The value of the site's fact d on the host behind sys (raises with the
-- fact's name and place when its command fails or its parse raises).
local function evaluate(sys, d)
   local where = string.format('fact "%s" (%s)', d.name, d.origin)
   if d.file then
      local ok, text = pcall(sys.read, sys, d.file)
      if not ok then error(string.format("%s: %s", where, tostring(text)), 0) end
      if text == nil then error(string.format("%s: %s does not exist", where, d.file), 0) end
      if d.parse == nil then return trim(text) end
      local pok, v = pcall(d.parse, text, "")
      if not pok then
         error(string.format("%s: its parse function raised: %s", where, tostring(v)), 0)
      end
      return checked_value(where, v)
   end
   local ok, r = pcall(sys.query, sys, d.cmd)
   if not ok then
      error(string.format("%s: %s could not run: %s", where, argv_shown(d.cmd), tostring(r)), 0)
   end
   if r.code ~= 0 then
      local why = trim(r.stderr or "")
      error(string.format("%s: %s exited with %d%s", where, argv_shown(d.cmd), r.code,
                          why ~= "" and ": " .. why or ""), 0)
   end
   if d.parse == nil then return trim(r.stdout or "") end
   local pok, v = pcall(d.parse, r.stdout or "", r.stderr or "")
   if not pok then
      error(string.format("%s: its parse function raised: %s", where, tostring(v)), 0)
   end
   return checked_value(where, v)
end

-- sys -> { done =, order = } of each host whose site facts were asked for.
local states = setmetatable({}, { __mode = "k" })

-- A lookup of the site's facts for one host: each is evaluated on first
-- use and kept, its value or its error (so it runs once per host per
-- run); done[name] = { value = v } or { error = msg }, in use order.
local function site_lookup(sys, done, order)
   return function(k)
      local d = M.defined[k]
      if d == nil then return nil end
      local e = done[k]
      if e == nil then
         local ok, v = pcall(evaluate, sys, d)
         e = ok and { value = v } or { error = tostring(v) }
         done[k] = e
         order[#order + 1] = k
      end
      if e.error then error(e.error, 0) end
      return e.value
   end
end

-- ---------------------------------------------------------------------
-- The site's facts of a host as JSON (for prop run --json).

local json_escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t" }
local function json_string(s)
   local out = s:gsub('[%c"\\]', function(c)
      return json_escapes[c] or string.format("\\u%04x", c:byte())
   end)
   if utf8.len(out) == nil then
      -- Not UTF-8: each byte above 127 stands for itself (Latin-1).
      out = out:gsub("[\128-\255]", function(c) return utf8.char(c:byte()) end)
   end
   return '"' .. out .. '"'
end

local function json_value(v, depth)
   local t = type(v)
   if t == "string" then return json_string(v)
   elseif t == "boolean" then return tostring(v)
   elseif t == "number" then
      if v ~= v or v == math.huge or v == -math.huge then return "null" end
      if math.type(v) == "integer" then return string.format("%d", v) end
      return string.format("%.17g", v)
   elseif t == "table" then
      if depth > 16 then return "null" end
      local n, keys = 0, {}
      for k in pairs(v) do
         n = n + 1
         keys[#keys + 1] = k
      end
      local parts = {}
      if n > 0 and n == #v then
         for i = 1, n do parts[i] = json_value(v[i], depth + 1) end
         return "[" .. table.concat(parts, ",") .. "]"
      end
      for i, k in ipairs(keys) do keys[i] = tostring(k) end
      table.sort(keys)
      for _, k in ipairs(keys) do
         local x = v[k]
         if x == nil then x = v[tonumber(k)] end
         parts[#parts + 1] = json_string(k) .. ":" .. json_value(x, depth + 1)
      end
      return "{" .. table.concat(parts, ",") .. "}"
   end
   return "null"
end
M.json_value = json_value

-- {"name":{"value":v},...,"other":{"error":"..."}}: the site's facts the host's
-- run used, in the order first used; nil when it used none.
function M.site_json(sys)
   local state = states[sys]
   if state == nil or #state.order == 0 then return nil end
   local parts = {}
   for _, k in ipairs(state.order) do
      local e = state.done[k]
      local v = e.error and '{"error":' .. json_string(e.error) .. "}"
         or '{"value":' .. json_value(e.value, 0) .. "}"
      parts[#parts + 1] = json_string(k) .. ":" .. v
   end
   return "{" .. table.concat(parts, ",") .. "}"
end

-- The facts of the host behind sys.  Raises when the command cannot run.
function M.gather(sys)
   local t = sys.transport
   local f
   if type(t) == "string" and t:sub(1, 4) == "dir:" then
      f = {}
      local text = sys:read("/etc/os-release") or sys:read("/usr/lib/os-release")
      from_os_release(f, parse_os_release(text))
      f.tree = true
   else
      local r = sys:query({ "sh", "-c", M.script })
      if r.code ~= 0 then
         local why = (r.stderr or ""):gsub("%s+$", "")
         error(string.format("sys.facts: the command that gathers the facts exited with %d%s",
                             r.code, why ~= "" and ": " .. why or ""), 0)
      end
      f = M.parse(r.stdout)
   end
   if next(M.defined) == nil then return frozen(f) end
   local state = { done = {}, order = {} }
   states[sys] = state
   return frozen(f, site_lookup(sys, state.done, state.order))
end

return M
