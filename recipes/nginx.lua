-- prop.nginx: the nginx web server on Debian and Ubuntu.
--
-- Sites live as Debian lays them out: /etc/nginx/sites-available/NAME,
-- enabled by the symlink /etc/nginx/sites-enabled/NAME.  Every change
-- is tested with nginx -t before nginx is reloaded; a configuration
-- nginx refuses is put back as it was, and the property fails with what
-- nginx said.

local core = require "prop.core"
local claim = core.claim

-- The fields of a core.leaf{} with those of extra (a table or nil) added.
local function with_extra(t, extra)
   for k, v in pairs(extra or {}) do t[k] = v end
   return t
end
local args = require "prop.args"
local R = require "prop.runtime"
local V = require "prop.vhost"

local nginx = {}

local AVAILABLE = "/etc/nginx/sites-available/"
local ENABLED = "/etc/nginx/sites-enabled/"

local impl = { installed = {}, site = {}, disabled = {} }

function impl.installed.ensure(sys, a)
   local changed = R.apt_install(sys, "nginx.installed", { a.package })
   if R.ensure_running(sys, a.package) then changed = true end
   if a.purge and V.purge_enabled(sys, a.purge) then changed = true end
   return changed and "changed" or "ok"
end

-- A reload (SIGHUP to nginx's master) returns before nginx has read the
-- configuration: the master then starts new worker processes and tells
-- the old ones to stop taking connections ("worker process is shutting
-- down").  WORKERS prints the master's workers that take connections
-- (PID:START-TIME, from the pid file nginx.conf names); AWAIT waits until
-- none of the ones given does and a new one does.
local WORKERS_SH = [=[
pidfile=$(sed -n 's/^[[:space:]]*pid[[:space:]][[:space:]]*\([^;[:space:]]*\).*/\1/p' \
  /etc/nginx/nginx.conf 2>/dev/null | head -n 1)
# stat PID: l, the fields of /proc/PID/stat after the command's name
# (state, parent, ...: the start time is the 20th).
stat() {
  { read -r l <"/proc/$1/stat"; } 2>/dev/null || return 1
  l=${l##*) }
}
workers() {
  m=$(cat "${pidfile:-/run/nginx.pid}" 2>/dev/null) || return 0
  [ -n "$m" ] || return 0
  if ! kids=$(cat "/proc/$m/task/$m/children" 2>/dev/null); then
    kids=
    for d in /proc/[0-9]*; do
      stat "${d#/proc/}" || continue
      set -f; set -- $l; set +f
      [ "$2" = "$m" ] && kids="$kids ${d#/proc/}"
    done
  fi
  for c in $kids; do
    stat "$c" || continue
    set -f; set -- $l; set +f
    [ "$2" = "$m" ] || continue
    t=$(tr -d '\000' <"/proc/$c/cmdline" 2>/dev/null)
    [ "$t" = "nginx: worker process" ] && echo "$c:${20}"
  done
  return 0
}
if [ "$1" = workers ]; then workers; exit 0; fi
shift
old=" $* "
deadline=$(($(date +%s) + 60))
while :; do
  left=0 new=0
  for w in $(workers); do
    case "$old" in *" $w "*) left=1 ;; *) new=1 ;; esac
  done
  [ "$left" = 0 ] && [ "$new" = 1 ] && exit 0
  [ "$(date +%s)" -lt "$deadline" ] || exit 1
  sleep 0.1
done
]=]

-- nginx's workers before the reload: nil when there are none to see
-- (nothing to wait for).
local function workers_before(sys)
   local argv = { "sh", "-c", WORKERS_SH, "sh", "workers" }
   local r = R.query(sys, "nginx reload", argv)
   if r.code ~= 0 then R.command_failed("nginx reload", argv, r) end
   local list = {}
   for w in r.stdout:gmatch("%S+") do list[#list + 1] = w end
   return #list > 0 and list or nil
end

-- Until every worker of before has stopped taking connections and a new
-- one has started (a minute at most).
local function workers_replaced(sys, before)
   local argv = { "sh", "-c", WORKERS_SH, "sh", "await" }
   for _, w in ipairs(before) do argv[#argv + 1] = w end
   local r = R.query(sys, "nginx reload", argv)
   if r.code == 1 then
      R.fail("nginx was reloaded but has not taken the new configuration within a minute "
             .. "(its old worker processes still serve): nginx's error log says why")
   elseif r.code ~= 0 then
      R.command_failed("nginx reload", argv, r)
   end
end

V.reload_awaits.nginx = { before = workers_before, after = workers_replaced }

function impl.site.ensure(sys, a)
   return V.ensure_site(sys, a)
end
impl.site.verify = V.verify_site
impl.site.repair = V.repair_site

function impl.disabled.ensure(sys, a)
   return V.ensure_disabled(sys, a)
end

--[[ nginx.installed()
  DebianLike, not revertable, port 80 (shared with nginx's sites).
  Claims: package.installed nginx, service.running nginx.  Debian's
  default site listens on port 80; a site declares its own ports (a TLS
  site 443), which nginx's sites share among them without P006.
  Run time: apt-installs nginx when missing (as apt.installed), then
  starts the nginx service when it is not running (as service.running).
  Example:
    nginx.installed()
]]
function nginx.installed(opts, ...)
   local err = select("#", ...) > 0 and "nginx.installed takes one options table at most" or nil
   local oerr, o = args.options(opts, { purge_sites = args.boolean }, "nginx.installed")
   local msg = args.join("nginx.installed", err, oerr)
   if msg then return core.invalid("nginx installed", msg) end
   local claims = { claim.package_installed("nginx"), claim.service_running("nginx") }
   local a = { package = "nginx" }
   local desc = "nginx installed"
   if o.purge_sites then
      local dir = ENABLED:sub(1, -2)
      a.purge = { what = "nginx.installed", service = "nginx", install = "nginx.installed()",
                  dir = dir, test = { "nginx", "-t", "-q" } }
      claims[#claims + 1] = claim.file_directory(dir)
      claims[#claims + 1] = claim.file_purged(dir)
      desc = "nginx installed, sites-enabled purged"
   end
   return core.leaf{ desc = desc, targets = "DebianLike", impl = impl.installed,
                     args = a, claims = claims,
                     ports = { 80 }, shares_ports = "nginx",
                     norevert = 'nginx.installed has no revert action: use apt.removed "nginx" to remove it' }
end

local function site_args(name)
   return {
      what = "nginx.site", service = "nginx", install = "nginx.installed()",
      available = AVAILABLE .. name, enabled = ENABLED .. name, target = AVAILABLE .. name,
      test = { "nginx", "-t", "-q" },
   }
end

local function disabled_leaf(name, extra)
   local a = site_args(name)
   a.what = "nginx.site_disabled"
   return core.leaf(with_extra({ desc = "nginx site " .. name .. " disabled",
                                 targets = "DebianLike", impl = impl.disabled, args = a,
                                 claims = { claim.file_absent(a.enabled) } }, extra))
end

--[[ nginx.site(name, content)
  DebianLike, revertable: its revert is nginx.site_disabled(name).
  Claims: file.content /etc/nginx/sites-available/NAME = content, and
  file.symlink /etc/nginx/sites-enabled/NAME =
  /etc/nginx/sites-available/NAME (as Debian's default site is linked);
  and what its server blocks say: web.name NAME:PORT for each
  server_name and listen port of a block (80 when it has no listen;
  "_", "" and regular expressions are no names), web.default PORT for a
  listen ... default_server.  Two sites of a host (or of one network)
  answering one name on one port, or two default sites of one port, are
  P017.  Ports: those of its listen lines, shared with nginx's other
  sites (another service on one of them is P006).  A text prop cannot
  read (no server block, an include where listen or server_name may be,
  a variable in them) is warning W110: the site is then not checked.
  name: a file name ("example.org").  content: the server blocks, a
  string (template.text makes one from variables).
  Needs nginx installed (nginx.installed()): without /etc/nginx/sites-*
  it fails and says so.
  Run time: writes the file and makes the link when either differs, then
  tests the whole configuration with nginx -t; when nginx refuses it, the
  file and the link are put back as they were (a new site is removed)
  and the property fails with nginx's message, so nginx goes on serving
  the previous configuration.  When the test passes, a running nginx is
  reloaded (service nginx reload), and the property waits until nginx
  has taken the configuration (its worker processes replaced by new
  ones; it fails when that has not happened within a minute): once prop
  run returns, the new site is served.  Nothing to change: nginx is neither
  tested nor reloaded.  A dry run tests nothing and says it would; before
  nginx is installed, it says the site would be written once it is.
  Verify: its first plain-HTTP port answers for its first name, and not
  as a name no site has is answered (unless it is the default server for
  that port); repair: start, reload, else restart the server.
  Example:
    nginx.site("example.org",
               "server { listen 80; server_name example.org; root /srv/www/example.org; }\n")
]]
function nginx.site(name, content, opts)
   local desc = "nginx site " .. (type(name) == "string" and name or "?")
   local nerr = V.check_name(name, "name")
   local cerr = args.string(content, "content")
   local msg = args.join("nginx.site", nerr, cerr, (args.options(opts, {}, "nginx.site")))
   if msg then return core.invalid(desc, msg) end
   local a = site_args(name)
   a.content = content
   local claims = { claim.file_content(a.available, content),
                    claim.file_symlink(a.enabled, a.target) }
   local ports = V.declare(claims, "nginx", V.declared.nginx, content, "nginx.site", name)
   local site = core.leaf{ desc = desc, targets = "DebianLike", impl = impl.site, args = a,
                           claims = claims, ports = ports,
                           shares_ports = ports and "nginx" or nil }
   return core.pair(site, disabled_leaf(name))
end

--[[ nginx.site_disabled(name)
  DebianLike, not revertable (the content to enable again is not known:
  use nginx.site).
  Claims: file.absent /etc/nginx/sites-enabled/NAME.  The file in
  sites-available is kept.
  Run time: removes the link (or file) sites-enabled/NAME when there is
  one, tests with nginx -t (putting it back and failing when nginx
  refuses), then reloads a running nginx and waits until it has taken
  the configuration, as nginx.site.
  Example:
    nginx.site_disabled "default"
]]
function nginx.site_disabled(name, opts)
   local desc = "nginx site " .. (type(name) == "string" and name or "?") .. " disabled"
   local msg = args.join("nginx.site_disabled", (V.check_name(name, "name")),
                         (args.options(opts, {}, "nginx.site_disabled")))
   if msg then return core.invalid(desc, msg) end
   return disabled_leaf(name, {
      norevert = "nginx.site_disabled has no revert action: nginx.site(name, content) enables "
         .. "a site with its content",
   })
end

return args.strict_module(nginx, "nginx")
