-- prop.cron: jobs in /etc/cron.d.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"
local purge = require "prop.purge"

local cron = {}

local impl = { job = {}, absent = {} }

local fmt = string.format

-- Run time: the job is its file; cron reads /etc/cron.d itself, so there
-- is nothing to reload.  cron ignores files there that are writable by
-- group or others, or not owned by root: the file is 0644, root:root.
function impl.job.ensure(sys, a)
   local changed = false
   if not sys:exists("/etc/cron.d") then
      sys:mkdir("/etc/cron.d", { mode = tonumber("0755", 8) })
      changed = true
   end
   if R.ensure_content(sys, "cron.job", a.path, a.content, { mode = "0644", owner = "0", group = "0" }) then
      changed = true
   end
   return changed and "changed" or "ok"
end

function impl.absent.ensure(sys, a)
   local st = sys:stat(a.path)
   if st == nil then return "ok" end
   if st.type == "directory" then R.fail("cron job %s: %s is a directory", a.name, a.path) end
   sys:remove(a.path)
   return "changed"
end

local specials = {
   ["@reboot"] = true, ["@yearly"] = true, ["@annually"] = true, ["@monthly"] = true,
   ["@weekly"] = true, ["@daily"] = true, ["@midnight"] = true, ["@hourly"] = true,
}

-- Five fields of digits, "*", ",", "-", "/" and month or day names, or one
-- of cron's @-words.
local function check_schedule(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:sub(1, 1) == "@" then
      if specials[v] then return nil, v end
      local names = {}
      for k in pairs(specials) do names[#names + 1] = k end
      return fmt('%s "%s" is not one of cron\'s @-words%s', what, v, args.did_you_mean(v, names))
   end
   local fields = {}
   for f in v:gmatch("%S+") do fields[#fields + 1] = f end
   if #fields ~= 5 then
      return fmt('%s %s must have 5 fields (minute hour day-of-month month day-of-week), '
                 .. 'such as "30 4 * * *", or be an @-word such as "@daily"; it has %d',
                 what, args.show(v), #fields)
   end
   for _, f in ipairs(fields) do
      if not f:find("^[%w*,/-]+$") then
         return fmt("%s field %s is not valid", what, args.show(f))
      end
   end
   return nil, table.concat(fields, " ")
end

-- cron turns an unescaped % in the command into a newline, even inside
-- quotes, so each one is escaped after shell quoting.
local function cron_command(argv)
   return (args.shell_join(argv):gsub("%%", "\\%%"))
end

local function job_content(name, schedule, user, argv)
   return fmt("# cron job %s, managed by prop: edits here are overwritten\n"
              .. "SHELL=/bin/sh\n"
              .. "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
              .. "%s %s %s\n", name, schedule, user, cron_command(argv))
end

--[[ cron.job(name, schedule, argv [, { user= }])
  UnixLike, revertable: its revert removes the job's file.
  Claims: file.content /etc/cron.d/NAME = the generated file (one line
  running argv, each word shell-quoted, as user, root by default).
  name: letters, digits, "_" and "-" only, because cron ignores files in
  /etc/cron.d with other characters (a dot included).
  Run time: writes /etc/cron.d/NAME (0644, root:root, /etc/cron.d made
  when missing) when its content or attributes differ; ok when identical.
  Its revert removes the file when it is there.
  Example:
    cron.job("backup", "30 4 * * *", { "/usr/local/bin/backup", "--quiet" },
             { user = "backup" })
]]
function cron.job(name, schedule, argv, opts)
   local desc = "cron job " .. (type(name) == "string" and name or "?")
   local err = args.matching(name, "job name", "[%w_-]+",
                             'letters, digits, "_" and "-" only (cron skips files in '
                             .. '/etc/cron.d with other characters, a dot included)')
   local serr, s = check_schedule(schedule, "schedule")
   local aerr, a = args.argv(argv, "argv")
   if not aerr then
      for i, w in ipairs(a) do
         if w:find("[\n\r]") then
            aerr = fmt("argv[%d] contains a newline, which a cron line cannot hold", i)
            break
         end
      end
   end
   local oerr, o = args.options(opts, {
      user = function(v, what)
         return args.matching(v, what, "[a-z_][a-z0-9_-]*%$?", 'a user name such as "backup"')
      end,
   }, "cron.job")
   local msg = args.join("cron.job", err, serr, aerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local user = o.user or "root"
   local path = "/etc/cron.d/" .. name
   local content = job_content(name, s, user, a)
   local job = core.leaf{ desc = desc, impl = impl.job,
                          args = { name = name, schedule = s, argv = a, user = user, path = path,
                           content = content },
                          claims = { claim.file_content(path, content) } }
   local gone = core.leaf{ desc = "cron job " .. name .. " removed", impl = impl.absent,
                           args = { name = name, path = path },
                           claims = { claim.file_absent(path) } }
   return core.pair(job, gone)
end

-- The cron line's command of a nice job: in cwd, at the lowest CPU
-- priority nice gives by default (10) and in the idle I/O class, through
-- sh -c so that command may be any shell command line.
local function nice_command(cwd, command)
   return (fmt("cd %s && nice -n 10 ionice -c 3 sh -c %s", args.shell_quote(cwd),
               args.shell_quote(command)):gsub("%%", "\\%%"))
end

--[[ cron.nice_job(name, schedule, user, cwd, command)
  UnixLike, revertable: its revert removes the job's file.
  A job that gives way to everything else: command (a shell command
  line) runs as user, in the directory cwd, under nice -n 10 and
  ionice -c 3 (the idle I/O class), through sh -c.
  Claims: file.content /etc/cron.d/NAME = the generated file.
  name and schedule: as cron.job.
  Run time: as cron.job.
  Example:
    cron.nice_job("updatedb", "@daily", "root", "/", "updatedb --prunepaths=/srv")
]]
function cron.nice_job(name, schedule, user, cwd, command, opts)
   local desc = "cron job " .. (type(name) == "string" and name or "?") .. " (niced)"
   local err = args.matching(name, "job name", "[%w_-]+",
                             'letters, digits, "_" and "-" only (cron skips files in '
                             .. '/etc/cron.d with other characters, a dot included)')
   local serr, s = check_schedule(schedule, "schedule")
   local uerr = args.matching(user, "user", "[a-z_][a-z0-9_-]*%$?", 'a user name such as "backup"')
   local derr = args.abs_path(cwd, "cwd")
   local cerr = args.nonempty_string(command, "command")
   if not cerr and command:find("[\n\r]") then
      cerr = "command contains a newline, which a cron line cannot hold"
   end
   local msg = args.join("cron.nice_job", err, serr, uerr, derr, cerr,
                         (args.options(opts, {}, "cron.nice_job")))
   if msg then return core.invalid(desc, msg) end
   local path = "/etc/cron.d/" .. name
   local content = fmt("# cron job %s, managed by prop: edits here are overwritten\n"
                       .. "SHELL=/bin/sh\n"
                       .. "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
                       .. "%s %s %s\n", name, s, user, nice_command(cwd, command))
   local job = core.leaf{ desc = desc, impl = impl.job,
                          args = { name = name, schedule = s, user = user, path = path, content = content },
                          claims = { claim.file_content(path, content) } }
   local gone = core.leaf{ desc = "cron job " .. name .. " removed", impl = impl.absent,
                           args = { name = name, path = path },
                           claims = { claim.file_absent(path) } }
   return core.pair(job, gone)
end

--[[ cron.purged()
  UnixLike, not revertable (what a purge removed is gone).
  Claims: file.directory and file.purged /etc/cron.d.
  /etc/cron.d holds exactly the jobs the host's properties declare
  (cron.job, cron.nice_job, and any other property claiming a file
  there): at run time every other entry is removed and named in a note
  (a dry run says "would remove ..."), as file.directory's purge = true
  does.  Jobs a package installed there (dpkg, rpm or pkg says it owns
  the file: e2scrub_all, sysstat, certbot ...) are the package's and
  stay: remove the package to remove them.
  Example:
    cron.purged()
    cron.job("backup", "30 4 * * *", { "/usr/local/bin/backup" })
]]
function cron.purged(a, ...)
   local err = args.no_args("cron.purged", a, ...)
   if err then return core.invalid("cron jobs purged", err) end
   return purge.leaf{ desc = "/etc/cron.d holds only the site's cron jobs", what = "cron.purged",
                      dir = "/etc/cron.d", keep = purge.packaged }
end

return args.strict_module(cron, "cron")
