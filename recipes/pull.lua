-- prop.pull: pull mode.  pull.scheduled installs prop's own timer on a
-- host, which runs `prop pull REPO` there: a systemd timer and service
-- where systemd runs, a cron job otherwise.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local pull = {}

local fmt, concat = string.format, table.concat

local units_dir = "/etc/systemd/system"
local service_path = units_dir .. "/prop-pull.service"
local timer_path = units_dir .. "/prop-pull.timer"
local wants_path = units_dir .. "/timers.target.wants/prop-pull.timer"
local cron_path = "/etc/cron.d/prop-pull"
local log_path = "/var/log/prop-pull.log"

-- ---------------------------------------------------------------------
-- Run time.

local impl = { scheduled = {}, unscheduled = {} }

local function systemd_runs(sys)
   return not R.is_dir_tree(sys) and sys:exists("/run/systemd/system")
end

-- A spread of the hosts' runs: the same number for a host every time (so
-- that the files do not change from one run to the next), different
-- numbers for different hosts.
local function splay(name, n)
   if n <= 0 then return 0 end
   local h = 2166136261
   for i = 1, #name do
      h = ((h ~ name:byte(i)) * 16777619) & 0xffffffff
   end
   return h % n
end

-- One word of an ExecStart= line: quoted, with systemd's specifiers (%)
-- and variables ($) taken literally.
local function unit_word(s)
   return '"' .. s:gsub('[\\"]', "\\%0"):gsub("%%", "%%%%"):gsub("%$", "$$") .. '"'
end

local function unit_argv(argv)
   local out = {}
   for i, a in ipairs(argv) do out[i] = unit_word(a) end
   return concat(out, " ")
end

local header = "# %s, managed by prop (pull.scheduled): edits here are overwritten\n"

local function service_text(a)
   return fmt(header, "prop pull service")
      .. "[Unit]\n"
      .. "Description=prop pull: apply this host's part of the site from git\n"
      .. "Documentation=man:prop-pull(1)\n"
      .. "Wants=network-online.target\n"
      .. "After=network-online.target\n"
      .. "\n"
      .. "[Service]\n"
      -- A oneshot service is never started again while it runs, and
      -- prop pull holds its own lock besides.
      .. "Type=oneshot\n"
      -- A pull that stalls is stopped (and the timer runs the next one)
      -- rather than holding off every later pull.
      .. fmt("TimeoutStartSec=%ds\n", a.timeout_s)
      .. "ExecStart=" .. unit_argv(a.argv) .. "\n"
end

local function timer_text(a)
   return fmt(header, "prop pull timer")
      .. "[Unit]\n"
      .. "Description=prop pull every " .. a.every .. "\n"
      .. "Documentation=man:prop-pull(1)\n"
      .. "\n"
      .. "[Timer]\n"
      .. "OnBootSec=2min\n"
      .. fmt("OnUnitInactiveSec=%ds\n", a.every_s)
      .. fmt("RandomizedDelaySec=%ds\n", a.jitter_s)
      .. "\n"
      .. "[Install]\n"
      .. "WantedBy=timers.target\n"
end

-- The schedule of the cron line: every N minutes from a minute of the
-- host's own, every N hours at a minute of its own, or daily.
local function cron_schedule(a, host)
   local m = a.every_s // 60
   if m < 60 then
      return fmt("%d-59/%d * * * *", splay(host, m), m)
   end
   local h = m // 60
   if h < 24 then
      return fmt("%d %d-23/%d * * *", splay(host, 60), splay(host .. "h", h), h)
   end
   return fmt("%d %d * * *", splay(host, 60), splay(host .. "h", 24))
end

-- The cron job: under the lock, the pull marks the lock file (its
-- modification time) when it starts.  A run that finds the lock held
-- (exit 75: flock -E 75, lockf -t 0) skips; when the holder started more
-- than `timeout` ago it says so, on stderr (cron mails it) and to
-- syslog, and exits 1, so that a stalled pull is not silent.
local function cron_text(sys, a)
   local host = sys.host or ""
   local file = R.is_freebsd(sys) and "/var/run/prop-pull.lock" or "/run/lock/prop-pull.lock"
   local lock = R.is_freebsd(sys) and { "lockf", "-s", "-t", "0", file }
      or { "flock", "-n", "-E", "75", file }
   local inner = fmt(": >%s; sleep %d; exec %s >%s 2>&1", args.shell_quote(file),
                     splay(host .. "s", a.jitter_s + 1), args.shell_join(a.argv), log_path)
   local minutes = (a.timeout_s + 59) // 60
   local msg = fmt("prop pull: the previous pull has held %s for more than %d minutes: "
                   .. "it is stalled, and this one is skipped", file, minutes)
   local cmd = args.shell_join(lock) .. " /bin/sh -c " .. args.shell_quote(inner)
      .. "; r=$?; if [ $r = 75 ]; then r=0; if [ -n \"$(find " .. args.shell_quote(file)
      .. fmt(" -mmin +%d 2>/dev/null)\" ]; then ", minutes)
      .. "echo " .. args.shell_quote(msg) .. " >&2; logger -t prop-pull " .. args.shell_quote(msg)
      .. " 2>/dev/null; r=1; fi; fi; exit $r"
   -- cron turns an unescaped % into a newline, even inside quotes.
   return fmt(header, "prop pull cron job")
      .. "SHELL=/bin/sh\n"
      .. "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
      .. cron_schedule(a, host) .. " root " .. cmd:gsub("%%", "\\%%") .. "\n"
end

local function mkdir_p(sys, dir)
   if sys:exists(dir) then return end
   local parent = dir:match("^(.*)/[^/]+$")
   if parent and parent ~= "" then mkdir_p(sys, parent) end
   sys:mkdir(dir, { mode = tonumber("0755", 8) })
end

local function put(sys, path, text)
   mkdir_p(sys, path:match("^(.*)/[^/]+$"))
   return R.ensure_content(sys, "pull.scheduled", path, text,
                           { mode = "0644", owner = "0", group = "0" })
end

local function drop(sys, path)
   local st = sys:stat(path)
   if st == nil then return false end
   if st.type == "directory" then R.fail("pull.scheduled: %s is a directory", path) end
   sys:remove(path)
   return true
end

local function link(sys, target, path)
   local st = sys:stat(path)
   if st and st.type == "link" and st.target == target then return false end
   if st and st.type ~= "link" then
      R.fail("pull.scheduled: %s exists and is not a symbolic link", path)
   end
   mkdir_p(sys, path:match("^(.*)/[^/]+$"))
   sys:symlink(target, path)
   return true
end

local function systemctl(sys, ...)
   R.run(sys, "systemctl " .. concat({ ... }, " "), { "systemctl", ... })
end

-- The systemd units gone (the timer stopped first, where systemd runs).
local function drop_units(sys, live)
   if not (sys:exists(timer_path) or sys:exists(service_path) or sys:stat(wants_path)) then
      return false
   end
   if live and sys:query({ "systemctl", "is-active", "--quiet", "prop-pull.timer" }).code == 0 then
      systemctl(sys, "stop", "prop-pull.timer")
   end
   drop(sys, wants_path)
   drop(sys, timer_path)
   drop(sys, service_path)
   if live then systemctl(sys, "daemon-reload") end
   return true
end

function impl.scheduled.ensure(sys, a)
   local live = systemd_runs(sys)
   local via = a.via or (live and "systemd" or "cron")
   local changed = false
   if via == "systemd" then
      if drop(sys, cron_path) then changed = true end
      local units = put(sys, service_path, service_text(a))
      units = put(sys, timer_path, timer_text(a)) or units
      -- Enabled as `systemctl enable` does it: the link in the wants of
      -- timers.target (which works on a tree too).
      if link(sys, "../prop-pull.timer", wants_path) then units = true end
      if units then changed = true end
      if live then
         if units then systemctl(sys, "daemon-reload") end
         if sys:query({ "systemctl", "is-active", "--quiet", "prop-pull.timer" }).code ~= 0 then
            systemctl(sys, "start", "prop-pull.timer")
            changed = true
         end
      end
   else
      if drop_units(sys, live) then changed = true end
      if put(sys, cron_path, cron_text(sys, a)) then changed = true end
   end
   return changed and "changed" or "ok"
end

function impl.unscheduled.ensure(sys)
   local changed = drop_units(sys, systemd_runs(sys))
   if drop(sys, cron_path) then changed = true end
   return changed and "changed" or "ok"
end

-- ---------------------------------------------------------------------
-- Evaluation.

local units = { s = 1, m = 60, h = 3600, d = 86400 }

-- "30m", "2h", "1d", "90s": seconds.
local function check_duration(v, what, allow_zero)
   if v == 0 and allow_zero then return nil, 0 end
   local n, u
   if type(v) == "string" then n, u = v:match("^(%d+)([smhd])$") end
   if not n then
      return fmt('%s must be a duration such as "30m", "2h" or "1d" (s, m, h, d), got %s',
                 what, args.show(v))
   end
   n = tonumber(n) * units[u]
   if n == 0 and not allow_zero then return fmt("%s must not be 0", what) end
   if n > 7 * 86400 then return fmt("%s %s is more than 7 days", what, v) end
   return nil, n
end

-- A cron line can only run every N minutes (N < 60), every N hours
-- (N < 24), or daily.
local function cron_every(s, every)
   local m = s / 60
   if s % 60 == 0 and (m < 60 or (m % 60 == 0 and (m / 60 < 24 or m == 1440))) then return nil end
   return fmt('every = "%s" cannot be a cron schedule: use whole minutes under an hour '
              .. '("15m"), whole hours under a day ("2h"), or "1d" (or via = "systemd")', every)
end

local function check_word(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("[%c]") then return fmt("%s must not contain control characters", what) end
   if v:sub(1, 1) == "-" then return fmt('%s must not start with "-"', what) end
   return nil, v
end

--[[ pull.scheduled(repo [, { every=, jitter=, timeout=, branch=, host=, site=, keyring=, state_dir=, prometheus=, prop=, via= }])
  UnixLike, revertable: its revert stops and removes the timer, or the
  cron job.
  Installs prop's own timer, which runs `prop pull REPO` on the host (with
  --branch, --host, --site, --keyring, --state-dir and --prometheus when
  given):
    - where systemd runs (or via = "systemd"): prop-pull.service (a
      oneshot: never started while it runs) and prop-pull.timer in
      /etc/systemd/system, enabled (its link in timers.target.wants) and
      started; the timer fires 2 minutes after boot, then `every` after
      the last run ended, with RandomizedDelaySec = jitter;
    - otherwise (or via = "cron"): /etc/cron.d/prop-pull, every `every`
      from a minute of the host's own, sleeping a number of seconds of the
      host's own under `jitter` first, under flock(1) (lockf(1) on
      FreeBSD) so that two runs never overlap, its output in
      /var/log/prop-pull.log (the last run's); a run that finds the
      lock held for more than `timeout` says so on stderr and to syslog
      and exits 1.
  The service's TimeoutStartSec is `timeout` ("1h" by default): a pull
  that stalls is stopped.  prop pull is given --every, so that prop
  status can tell a host whose pulls stopped (stale).
  prometheus: an absolute path, such as
  "/var/lib/prometheus/node-exporter/prop.prom": each pull that runs the
  site writes there the state of the host's properties as metrics for
  node_exporter's textfile collector (prop-pull(1), --prometheus); the
  directory is node_exporter's, not made here.
  The other way's files are removed, so a host that gains systemd moves
  over.  every: "30m" by default (s, m, h or d); jitter: "5m" by default,
  0 for none; prop: the absolute path of prop on the host,
  "/usr/local/bin/prop" by default.
  Claims: file.owned of the four paths (one schedule per host).
  Example:
    pull.scheduled("https://git.example.org/ops/site.git",
                   { every = "15m", branch = "production" })
]]
function pull.scheduled(repo, opts)
   local desc = "prop pull scheduled"
   local rerr, r = check_word(repo, "repo")
   local oerr, o = args.options(opts, {
      every = function(v, what) return check_duration(v, what, false) end,
      jitter = function(v, what) return check_duration(v, what, true) end,
      timeout = function(v, what) return check_duration(v, what, false) end,
      branch = function(v, what)
         return args.matching(v, what, "[%w_][%w_./-]*", 'a branch name such as "main"')
      end,
      host = check_word,
      site = function(v, what)
         local err = args.matching(v, what, "[%w_./-]+", 'a path in the repository such as "site.lua"')
         if err then return err end
         if v:sub(1, 1) == "/" or ("/" .. v .. "/"):find("/%.%./") then
            return fmt("%s must be relative to the repository, without \"..\"", what)
         end
         return nil, v
      end,
      keyring = function(v, what)
         local err, list = args.string_list(v, what)
         if err then return err end
         for i, k in ipairs(list) do
            if k:sub(1, 1) ~= "/" or k:find("[%c]") then
               return fmt("%s[%d] must be an absolute path, got %s", what, i, args.show(k))
            end
         end
         return nil, list
      end,
      state_dir = function(v, what) return args.abs_path(v, what) end,
      prometheus = function(v, what)
         local err, p = args.abs_path(v, what)
         if err then return err end
         if p:find("[%c]") then return fmt("%s must not contain control characters", what) end
         return nil, p
      end,
      prop = function(v, what) return args.abs_path(v, what) end,
      via = function(v, what)
         if v == "systemd" or v == "cron" then return nil, v end
         return fmt('%s must be "systemd" or "cron", got %s', what, args.show(v))
      end,
   }, "pull.scheduled")
   local every = type(opts) == "table" and type(opts.every) == "string" and opts.every or "30m"
   local every_s = o and o.every or 1800
   local cerr = o and o.via ~= "systemd" and cron_every(every_s, every)
   local msg = args.join("pull.scheduled", rerr, oerr, cerr or nil)
   if msg then return core.invalid(desc, msg) end
   local argv = { o.prop or "/usr/local/bin/prop", "pull", r, "--every", fmt("%ds", every_s) }
   local function add(...) for _, w in ipairs({ ... }) do argv[#argv + 1] = w end end
   if o.branch then add("--branch", o.branch) end
   if o.host then add("--host", o.host) end
   if o.site then add("--site", o.site) end
   for _, k in ipairs(o.keyring or {}) do add("--keyring", k) end
   if o.state_dir then add("--state-dir", o.state_dir) end
   if o.prometheus then add("--prometheus", o.prometheus) end
   local a = {
      argv = argv, every = every, every_s = every_s,
      jitter_s = o.jitter or 300, via = o.via, timeout_s = o.timeout or 3600,
   }
   local claims = { claim.file_owned(service_path), claim.file_owned(timer_path),
                    claim.file_owned(wants_path), claim.file_owned(cron_path) }
   local on = core.leaf{ desc = fmt("prop pull %s every %s", r, every), targets = "UnixLike",
                         impl = impl.scheduled, args = a, claims = claims }
   local off = core.leaf{ desc = "prop pull not scheduled", targets = "UnixLike",
                          impl = impl.unscheduled, args = {}, claims = claims }
   return core.pair(on, off)
end

return args.strict_module(pull, "pull")
