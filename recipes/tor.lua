-- prop.tor: Tor relays and onion (hidden) services.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local tor = {}

local fmt = string.format

local impl = { bridge = {}, hidden = {}, no_hidden = {} }

-- The pid in tor's pid file, or nil.
local PIDFILE = "/run/tor/tor.pid"
local function tor_pid(sys)
   local r = sys:query({ "cat", PIDFILE }, R.any)
   return r.code == 0 and r.stdout:match("^%s*(%d+)") or nil
end

-- tor restarted, and proven so: another tor runs afterwards.  Debian's
-- init script cannot stop tor where it may not read the daemon's
-- /proc/PID/exe (a container without CAP_SYS_PTRACE, tor having switched
-- to its own user), and its restart then exits 0 with the old tor still
-- running on the old configuration.  That tor is stopped as the script
-- would have stopped it (SIGINT to the pid it wrote; a relay takes up to
-- 30 seconds to close its connections), then started.
local function restart(sys, what)
   local before = tor_pid(sys)
   R.service_do(sys, "tor", "restart")
   if sys.dry or R.no_daemons(sys) or before == nil then return end
   local after = tor_pid(sys)
   if after ~= before then return end
   local r = sys:run({ "sh", "-c", 'kill -INT "$1" || exit 1; i=0; '
                         .. 'while kill -0 "$1" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; '
                         .. 'i=$((i+1)); done; ! kill -0 "$1" 2>/dev/null', "sh", before }, R.any)
   if r.code ~= 0 then
      R.fail("%s: tor (pid %s) was not restarted: the init script's restart left it running, "
             .. "and it did not stop on SIGINT within 60 s", what, before)
   end
   R.service_do(sys, "tor", "start")
   after = tor_pid(sys)
   if after == nil or after == before then
      R.fail("%s: tor did not start again after it was stopped (no new pid in %s)", what, PIDFILE)
   end
   sys:note(fmt("service tor restart left tor (pid %s) running: stopped by its pid file and "
                   .. "started again (pid %s)", before, after))
end

function impl.bridge.ensure(sys, a)
   local installed = R.apt_install(sys, "tor.bridge", { a.package })
   -- Another ORPort (the bridge moved to another port) goes: tor would
   -- listen on both.
   local other = {}
   for _, l in ipairs((R.split_lines(sys:read(a.torrc)))) do
      if l:find("^%s*ORPort%s") and l ~= a.orport then other[#other + 1] = l end
   end
   local dropped = #other > 0 and R.ensure_no_lines(sys, "tor.bridge", a.torrc, other)
   local conf = R.ensure_lines(sys, "tor.bridge", a.torrc, a.lines) or dropped
   if conf then
      -- A running tor (started by the package's installation, too) reads
      -- these lines only when it starts.
      restart(sys, "tor.bridge")
      return "changed"
   end
   local started = R.ensure_running(sys, "tor")
   return (installed or conf or started) and "changed" or "ok"
end

local torrc = "/etc/tor/torrc"
local TORRC_D = "/etc/tor/torrc.d"
local INCLUDE = "%include /etc/tor/torrc.d/"
local HS_ROOT = "/var/lib/tor/"
-- Debian's tor.service and init script start tor with these.
local VERIFY = { "tor", "--defaults-torrc", "/usr/share/tor/tor-service-defaults-torrc",
                 "-f", torrc, "--verify-config" }

-- tor --verify-config of the whole configuration: nil, or tor's own
-- warnings and errors when it refuses it.
local function verify(sys, what)
   local r = R.query(sys, what, VERIFY)
   if r.code == 0 then return nil end
   local said = {}
   for l in ((r.stdout or "") .. "\n" .. (r.stderr or "")):gmatch("[^\n]+") do
      if l:find("%[warn%]") or l:find("%[err%]") then said[#said + 1] = l:gsub("^.-%[", "[") end
   end
   if #said == 0 then said[1] = R.tail((r.stderr or "") .. (r.stdout or ""), 4) end
   return table.concat(said, "\n", math.max(1, #said - 5))
end

-- A running tor reloads its configuration: service tor reload, which
-- sends it SIGHUP.  Debian's init script refuses when it cannot read the
-- daemon's /proc/PID/exe (a container without CAP_SYS_PTRACE, tor having
-- switched to its own user): the SIGHUP is then sent to the pid tor
-- wrote, as the script would have.
local function hup(sys, what)
   local argv = R.init_system(sys) == "systemd" and { "systemctl", "reload", "tor" }
      or { "service", "tor", "reload" }
   local r = sys:run(argv, R.any)
   if r.code == 0 then return end
   local k = sys:run({ "sh", "-c", 'kill -HUP "$(cat /run/tor/tor.pid)"' }, R.any)
   if k.code ~= 0 then R.command_failed(what, argv, r) end
   sys:note(fmt("%s failed (%s); SIGHUP sent to the pid in /run/tor/tor.pid instead",
                R.show_argv(argv), R.tail(r.stdout .. "\n" .. r.stderr, 1)))
end

-- tor running with its new configuration: reloaded when it runs, else
-- started (Debian's package starts it when installed).
local function reload(sys, what)
   if R.no_daemons(sys) then
      R.service_do(sys, "tor", "start")
   elseif R.service_is_running(sys, "tor") then
      hup(sys, what)
   else
      R.service_do(sys, "tor", "start")
   end
end

-- The onion address tor wrote for the service, or nil.  Tor writes it
-- once it has read the new configuration: a moment after the reload.
local function onion_address(sys, dir)
   local r = sys:query({ "sh", "-c", 'i=0; while [ ! -s "$1" ] && [ $i -lt 50 ]; do sleep 0.2; '
                           .. 'i=$((i+1)); done; head -n 1 "$1"', "sh", dir .. "hostname" })
   return r.code == 0 and r.stdout:match("^(%S+%.onion)%s*$") or nil
end

function impl.hidden.ensure(sys, a)
   local what = a.what
   local installed = R.apt_install(sys, what, { "tor" })
   local old_rc = sys:read(torrc)
   local rc_changed = R.ensure_lines(sys, what, torrc, { INCLUDE })
   local dst = sys:stat(TORRC_D)
   if dst == nil then
      sys:mkdir(TORRC_D, { mode = tonumber("0755", 8) })
   elseif dst.type ~= "directory" then
      R.fail("%s: %s is a %s, not a directory", what, TORRC_D, dst.type)
   end
   local st = sys:stat(a.path)
   if st and st.type ~= "file" then R.fail("%s: %s is a %s, not a file", what, a.path, st.type) end
   local old = st and sys:read(a.path)
   if old == a.content and not rc_changed and dst then
      local started = R.ensure_running(sys, "tor")
      return (installed or started) and "changed" or "ok"
   end
   sys:write(a.path, a.content)
   if sys.dry then
      sys:note("would check the configuration with tor --verify-config, then reload tor")
      return "changed"
   end
   local err = verify(sys, what)
   if err then
      -- Put back as it was: tor goes on with the configuration it runs.
      if old then sys:write(a.path, old) else sys:remove(a.path) end
      if rc_changed then
         if old_rc then sys:write(torrc, old_rc) else sys:remove(torrc) end
      end
      R.fail("%s: tor --verify-config refuses the configuration, so %s was left as it was:\n%s",
             what, old and a.path or torrc, err)
   end
   reload(sys, what)
   local onion = not R.no_daemons(sys) and onion_address(sys, a.dir)
   if onion then
      sys:note("onion address: " .. onion)
   elseif not R.no_daemons(sys) then
      sys:note("tor has not written " .. a.dir .. "hostname yet")
   end
   return "changed"
end

function impl.no_hidden.ensure(sys, a)
   local st = sys:stat(a.path)
   if st == nil then return "ok" end
   if st.type == "directory" then R.fail("%s (revert): %s is a directory", a.what, a.path) end
   sys:remove(a.path)
   if not sys.dry and R.service_is_running(sys, "tor") then hup(sys, a.what) end
   return "changed"
end

-- Probes -----------------------------------------------------------------

-- tor runs: nil, else what was seen.  Where no daemon runs (a chroot, a
-- directory tree, a machine not booted) there is nothing to see.
local function not_running(sys)
   if R.no_daemons(sys) or R.is_dir_tree(sys) then return nil end
   if R.service_is_running(sys, "tor") then return nil end
   return "tor is not running"
end

-- The probe of a hidden service: tor runs and has made the service (its
-- onion address in DIR/hostname).
function impl.hidden.verify(sys, a)
   local why = not_running(sys)
   if why then return false, why end
   if R.no_daemons(sys) or R.is_dir_tree(sys) then return true end
   local st = sys:stat(a.dir .. "hostname")
   if st == nil or st.type ~= "file" or st.size == 0 then
      return false, fmt("%shostname is %s: tor does not run the service", a.dir,
                        st == nil and "missing" or st.type ~= "file" and "not a file" or "empty")
   end
   return true
end

-- tor reads its configuration again (reloaded, or started).
function impl.hidden.repair(sys, a)
   reload(sys, a.what)
   sys:note("tor reloaded: " .. a.dir .. "hostname was missing")
end

--[[ tor.bridge([{ port = 443 }])
  DebianLike, not revertable, its port (443 unless told).
  Claims: package.installed tor, the lines of /etc/tor/torrc that make a
  bridge relay (BridgeRelay 1, ORPort PORT, ExitPolicy reject *:*), and
  its ORPort as a setting of torrc (two bridges on two ports are P007).
  Run time: apt-installs tor when missing; appends the missing bridge
  lines to /etc/tor/torrc (the rest of the file is kept) and removes any
  other ORPort line (a bridge moved to another port listens only there);
  restarts tor when torrc changed, else starts it when it is not running.
  Example:
    tor.bridge()
    tor.bridge { port = 9001 }   -- port 443 left to a web site
]]
function tor.bridge(opts, ...)
   local err = select("#", ...) > 0 and "tor.bridge takes one options table at most" or nil
   local oerr, o = args.options(opts, { port = args.port }, "tor.bridge")
   local msg = args.join("tor.bridge", err, oerr)
   if msg then return core.invalid("tor bridge", msg) end
   local port = o.port or 443
   local orport = "ORPort " .. port
   local lines = { "BridgeRelay 1", orport, "ExitPolicy reject *:*" }
   local claims = { claim.package_installed("tor"), claim.file_setting(torrc, "ORPort=" .. port) }
   for _, l in ipairs(lines) do claims[#claims + 1] = claim.file_line(torrc, l) end
   return core.leaf{ desc = port == 443 and "tor bridge" or "tor bridge on port " .. port,
                     targets = "DebianLike", impl = impl.bridge,
                     args = { package = "tor", torrc = torrc, lines = lines, orport = orport },
                     claims = claims, ports = { port },
                     norevert = "tor.bridge has no revert action: use apt.removed \"tor\" to remove it" }
end

local function check_target(v, what)
   if math.type(v) == "integer" then
      local err = args.port(v, what)
      if err then return err end
      return nil, "127.0.0.1:" .. v
   end
   if type(v) == "string" then
      if v:find("^unix:/[^%s]*$") then return nil, v end
      local host, port = v:match("^(.+):(%d+)$")
      local n = port and tonumber(port)
      if host and not host:find("[%s:]") or (host and host:find("^%[[%x:]+%]$")) then
         if n >= 1 and n <= 65535 then return nil, v end
      end
   end
   return fmt('%s must be a port, "ADDRESS:PORT" (such as "127.0.0.1:8080" or "[::1]:80") or '
              .. '"unix:/PATH", got %s', what, args.show(v))
end

--[[ tor.hidden_service(name, port [, { target= }])
  DebianLike, revertable: its revert removes the service's file (its
  keys in /var/lib/tor/NAME stay, so the address comes back with it).
  An onion service: connections to port of the onion address reach
  target (a port, "ADDRESS:PORT" or "unix:/PATH"; 127.0.0.1:PORT unless
  told) on the host.  Its configuration is the file
  /etc/tor/torrc.d/hidden-service-NAME ("HiddenServiceDir
  /var/lib/tor/NAME/" and "HiddenServicePort PORT TARGET"), which torrc
  includes.  One port per service: a second port is a second name.
  Claims: file.content /etc/tor/torrc.d/hidden-service-NAME (one name
  mapped two ways is P007), file.line /etc/tor/torrc "%include
  /etc/tor/torrc.d/", package.installed tor, service.running tor.  No
  port of the host is declared: the onion port is not one it listens on.
  Run time: installs tor, adds the include line, writes the file; the
  whole configuration is checked with tor --verify-config (as Debian's
  service starts tor) and, when tor refuses it, the file and torrc are
  put back as they were and the property fails with tor's warnings.
  Then tor is reloaded (started when not running) and the onion address
  it writes to /var/lib/tor/NAME/hostname is shown; sys.facts.onion[NAME]
  reads it in later runs.  Tor writes it without reaching the network.
  Example:
    tor.hidden_service("web", 80)
    tor.hidden_service("ssh", 22, { target = "127.0.0.1:22" })
]]
function tor.hidden_service(name, port, opts)
   local desc = "tor hidden service " .. (type(name) == "string" and name or "?")
   local nerr = args.matching(name, "name", "[%w][%w_-]*", 'a name such as "web" (letters, digits, "_" and "-")')
   local perr = args.port(port, "port")
   local oerr, o = args.options(opts, { target = check_target }, "tor.hidden_service")
   local msg = args.join("tor.hidden_service", nerr, perr, oerr)
   if msg then return core.invalid(desc, msg) end
   local target = o.target or ("127.0.0.1:" .. port)
   local dir = HS_ROOT .. name .. "/"
   local path = TORRC_D .. "/hidden-service-" .. name
   local content = fmt("# onion service %s, managed by prop: edits here are overwritten\n"
                       .. "HiddenServiceDir %s\nHiddenServicePort %d %s\n", name, dir, port, target)
   local a = { what = "tor.hidden_service " .. name, path = path, dir = dir, content = content }
   local up = core.leaf{ desc = desc .. " port " .. port .. " -> " .. target,
                         targets = "DebianLike", impl = impl.hidden, args = a,
                         claims = { claim.file_content(path, content),
                                    claim.file_line(torrc, INCLUDE),
                                    claim.file_directory(TORRC_D),
                                    claim.package_installed("tor"),
                                    claim.service_running("tor") } }
   local down = core.leaf{ desc = "no " .. desc, targets = "DebianLike", impl = impl.no_hidden,
                           args = a, claims = { claim.file_absent(path) } }
   return core.pair(up, down)
end

return args.strict_module(tor, "tor")
