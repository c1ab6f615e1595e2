-- prop.borg: backups with BorgBackup, run by cron.
--
-- A backup is a script (/usr/local/sbin/NAME) that makes an archive of
-- the directories in the repository and prunes the old ones, and a cron
-- job (/etc/cron.d/NAME) that runs it.  The repository is made (borg
-- init) when it does not exist; it is never removed.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local borg = {}

local impl = { init = {} }

local fmt = string.format
local concat = table.concat

local BORG = "/usr/bin/borg"
-- borg's keys directory for root (BORG_KEYS_DIR's default).
local KEYS_DIR = "/root/.config/borg/keys"

local function borg_argv(a, ...)
   local argv = { "env" }
   if a.passfile then argv[#argv + 1] = "BORG_PASSCOMMAND=cat " .. a.passfile end
   for _, kv in ipairs(a.env or {}) do argv[#argv + 1] = kv[1] .. "=" .. kv[2] end
   argv[#argv + 1] = "borg"
   for _, w in ipairs({ ... }) do argv[#argv + 1] = w end
   return argv
end

local function is_local(repo)
   return repo:sub(1, 1) == "/"
end

-- Whether the repository exists: a local one has its config file; a
-- remote one is asked with borg info.
local function repo_exists(sys, a, what)
   if is_local(a.repo) then return sys:exists(a.repo .. "/config") end
   local argv = borg_argv(a, "info", a.repo)
   local r = R.query(sys, what, argv)
   if r.code == 0 then return true end
   if (r.stderr or ""):find("does not exist", 1, true) then return false end
   R.command_failed(what, argv, r)
end

function impl.init.ensure(sys, a)
   local what = "borg.backup " .. a.name
   if not sys:exists(BORG) then
      if not sys.dry then
         R.fail("%s: borg is not installed (%s is missing)", what, BORG)
      end
      sys:note(fmt("would make the repository %s once borgbackup is installed", a.repo))
      return "changed"
   end
   if repo_exists(sys, a, what) then return "ok" end
   if a.keyfile then
      if not sys.dry then
         R.fail("%s: the repository %s does not exist; with keyfile= prop does not make it (the key "
                .. "belongs to the repository it was made with)", what, a.repo)
      end
      sys:note("the repository " .. a.repo .. " does not exist: with keyfile= the run fails")
      return "changed"
   end
   local argv = borg_argv(a, "init", "--encryption=" .. (a.passfile and "repokey" or "none"))
   if is_local(a.repo) then argv[#argv + 1] = "--make-parent-dirs" end
   argv[#argv + 1] = a.repo
   R.run(sys, what, argv)
   sys:note(fmt("%s the repository %s (%s)", sys.dry and "would make" or "made", a.repo,
                a.passfile and "encrypted, repokey" or "not encrypted"))
   return "changed"
end

-- A repository: an absolute path, or a remote one (ssh://user@host/path,
-- user@host:path).
local function check_repo(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("[%s'\"\\]") then
      return fmt("%s %s must not contain blanks, quotes or backslashes", what, args.show(v))
   end
   if is_local(v) then return args.abs_path(v, what), v end
   if v:find("^ssh://[%w._-]+@[%w.-]+[:%d]*/") or v:find("^[%w._-]+@[%w.-]+:") then
      return nil, v
   end
   return fmt('%s %s must be an absolute path or a remote repository such as '
              .. '"backup@nas:/srv/borg" or "ssh://backup@nas/./borg"', what, args.show(v))
end

local keep_kinds = { "hourly", "daily", "weekly", "monthly", "yearly" }

local function check_keep(v, what)
   local schema = {}
   for _, k in ipairs(keep_kinds) do
      schema[k] = function(x, w)
         if math.type(x) ~= "integer" or x < 1 then
            return fmt("%s.%s must be a positive integer, got %s", what, w, args.show(x))
         end
         return nil, x
      end
   end
   if type(v) ~= "table" or next(v) == nil then
      return fmt("%s must be a table such as { daily = 7, weekly = 4, monthly = 6 }, got %s",
                 what, args.got(v))
   end
   return args.options(v, schema, "borg.backup keep")
end

local periods = { hourly = "@hourly", daily = "@daily", weekly = "@weekly", monthly = "@monthly" }

-- Variables prop sets itself, or that would put a secret in the site or
-- on a command line.
local env_refused = {
   BORG_REPO = "it is the repo argument",
   BORG_PASSCOMMAND = "prop sets it for passphrase=",
   BORG_PASSPHRASE = "a passphrase is a secret: give passphrase = secret \"name\"",
   BORG_NEW_PASSPHRASE = "a passphrase is a secret: give passphrase = secret \"name\"",
   BORG_PASSPHRASE_FD = "prop sets BORG_PASSCOMMAND for passphrase=",
}

-- env: { NAME = "value", ... } -> a sorted list of { NAME, value }.
local function check_env(v, what)
   if type(v) ~= "table" or next(v) == nil or v[1] ~= nil then
      return fmt('%s must be a table of variables such as { BORG_REMOTE_PATH = "borg-1.2" }, '
                 .. "got %s", what, args.got(v))
   end
   local names = {}
   for k in pairs(v) do
      if type(k) ~= "string" or not k:find("^[A-Za-z_][A-Za-z0-9_]*$") then
         return fmt("%s: %s is not a variable name", what, args.show(k))
      end
      if env_refused[k] then return fmt("%s: %s is refused: %s", what, k, env_refused[k]) end
      names[#names + 1] = k
   end
   table.sort(names)
   local out = {}
   for _, k in ipairs(names) do
      local x = v[k]
      if core.is_secret(x) then
         return fmt("%s.%s is a secret: prop puts env= values on borg's command line and in the "
                    .. "script, where secrets never go (use passphrase=)", what, k)
      end
      if math.type(x) == "integer" then x = tostring(x) end
      if type(x) ~= "string" then
         return fmt("%s.%s must be a string, got %s", what, k, args.got(x))
      end
      if x:find("[\r\n%z]") then return fmt("%s.%s contains a newline", what, k) end
      out[#out + 1] = { k, x }
   end
   return nil, out
end

local schema = {
   keep = check_keep,
   env = check_env,
   keyfile = function(v, what)
      if core.is_secret(v) then return nil, v end
      return fmt('%s must be a secret (secret "name" from the site\'s store), got %s: a key is '
                 .. "never written in the site", what, args.got(v))
   end,
   passphrase = function(v, what)
      if core.is_secret(v) then return nil, v end
      return fmt('%s must be a secret (secret "name" from the site\'s store), got %s: a '
                 .. "passphrase is never written in the site", what, args.got(v))
   end,
   when = function(v, what)
      local err = args.nonempty_string(v, what)
      if err then return err end
      if periods[v] == nil and not v:find("%s") and v:sub(1, 1) ~= "@" then
         local names = { "hourly", "daily", "weekly", "monthly" }
         return fmt('%s %s must be hourly, daily, weekly, monthly or a cron schedule such as '
                    .. '"30 3 * * *"%s', what, args.show(v), args.did_you_mean(v, names))
      end
      return nil, periods[v] or v
   end,
   exclude = function(v, what)
      return args.list(v, what, function(x, w)
         local err = args.nonempty_string(x, w)
         if err then return err end
         if x:find("[\r\n]") then return fmt("%s %s contains a newline", w, args.show(x)) end
         return nil, x
      end, { nonempty = true })
   end,
   name = function(v, what)
      return args.matching(v, what, "[%w][%w_-]*",
                           'letters, digits, "_" and "-" (it names the cron job and the script)')
   end,
}

-- The name of a backup to repo: "borg-" and the repository's words.
local function default_name(repo)
   local slug = repo:gsub("[^%w]+", "-"):gsub("^%-+", ""):gsub("%-+$", "")
   return "borg-" .. slug:sub(1, 60)
end

local function script(name, dirs, repo, o, passfile)
   local q = args.shell_quote
   local qdirs = {}
   for i, d in ipairs(dirs) do qdirs[i] = q(d) end
   local lines = {
      "#!/bin/sh",
      fmt("# borg backup %s, managed by prop: edits here are overwritten", name),
      "# Makes an archive of the directories, then prunes the old ones.",
      "set -u",
      "export BORG_REPO=" .. q(repo),
   }
   if passfile then lines[#lines + 1] = "export BORG_PASSCOMMAND=" .. q("cat " .. passfile) end
   for _, kv in ipairs(o.env or {}) do lines[#lines + 1] = "export " .. kv[1] .. "=" .. q(kv[2]) end
   lines[#lines + 1] = "rc=0"
   local excl = {}
   for i, e in ipairs(o.exclude or {}) do excl[i] = "--exclude " .. q(e) .. " " end
   lines[#lines + 1] = "borg create --one-file-system " .. concat(excl)
      .. "'::{hostname}-{now:%Y-%m-%dT%H:%M:%S}' " .. concat(qdirs, " ") .. " || rc=$?"
   lines[#lines + 1] = "# 1 is a warning (a file changed while it was read): the archive is made."
   lines[#lines + 1] = '[ "$rc" -le 1 ] || exit "$rc"'
   if o.keep then
      local flags = {}
      for _, k in ipairs(keep_kinds) do
         if o.keep[k] then flags[#flags + 1] = fmt("--keep-%s %d", k, o.keep[k]) end
      end
      lines[#lines + 1] = "borg prune --glob-archives '{hostname}-*' " .. concat(flags, " ")
         .. " || exit $?"
      lines[#lines + 1] = "borg compact || exit $?"
   end
   lines[#lines + 1] = 'exit "$rc"'
   return concat(lines, "\n") .. "\n"
end

--[[ borg.backup(dirs, repo [, { keep = { daily=, weekly=, monthly= }, passphrase =
                 secret "name", when = "daily", exclude = { patterns }, name =, env =, keyfile = }])
  DebianLike, revertable: its revert removes the cron job, the script and
  the passphrase file (never the repository nor its archives).
  dirs: an absolute path or a list of them.  repo: an absolute path, or
  a remote repository ("backup@nas:/srv/borg", "ssh://backup@nas/./borg",
  reached with root's SSH key).  keep: how many hourly, daily, weekly,
  monthly, yearly archives borg prune keeps (without keep nothing is
  pruned).  passphrase: a secret; the repository is then encrypted
  (repokey), else not encrypted.  when: "hourly", "daily" (the default),
  "weekly", "monthly", or a cron schedule ("30 3 * * *").  exclude:
  borg create's --exclude patterns ("/var/cache/*", "*.tmp").  name: the
  backup's name, "borg-" and the repository's words by default.  env:
  variables for every borg command prop runs (borg info, borg init) and
  for the script the cron job runs (exported there), such as
  { BORG_REMOTE_PATH = "borg-1.2", BORG_RSH = "ssh -i /root/.ssh/backup" };
  a secret as a value is refused (they would be on a command line), as
  are BORG_REPO, BORG_PASSPHRASE, BORG_NEW_PASSPHRASE, BORG_PASSCOMMAND
  and BORG_PASSPHRASE_FD (passphrase= is the way).  keyfile: a secret,
  the key file of a repository made with borg init --encryption=keyfile
  (stored with prop secret set SITE NAME < ~/.config/borg/keys/FILE),
  written to /root/.config/borg/keys/NAME (0600; borg finds it by the
  repository's id); the repository must exist then (prop does not make
  one with keyfile=); give passphrase= too when the key has one.  The
  revert removes it.
  Claims: package.installed borgbackup and cron, service.running cron
  (started when it is not, as the job needs it); file.content of
  /usr/local/sbin/NAME (the script, 0700) and /etc/cron.d/NAME (as
  cron.job); with a passphrase, file.directory /etc/borg and
  file.content /etc/borg/NAME.passphrase (0600, secret); for a local
  repository, file.generated REPO.
  Run time: borgbackup and cron installed and cron running, the passphrase file and the
  script written, the repository made with borg init (parent directories
  too) when it does not exist (a local one: REPO/config is missing; a
  remote one: borg info says so), then the cron job.  The script runs
  borg create of an archive named HOST-DATE (--one-file-system; exit 1,
  a warning, still prunes), then borg prune of this host's archives and
  borg compact; run it by hand to make a backup now.
  Example:
    borg.backup({ "/etc", "/srv" }, "/var/backups/borg",
                { keep = { daily = 7, weekly = 4, monthly = 6 } })
]]
function borg.backup(dirs, repo, opts)
   local desc = "borg backup to " .. (type(repo) == "string" and repo or "?")
   local derr, dlist = args.list(dirs, "dirs", args.abs_path, { nonempty = true })
   if not derr then
      for _, d in ipairs(dlist) do
         if d:find("[\r\n]") then derr = fmt("dirs %s contains a newline", args.show(d)) end
      end
   end
   local rerr, r = check_repo(repo, "repo")
   local oerr, o = args.options(opts, schema, "borg.backup")
   local msg = args.join("borg.backup", derr, rerr, oerr)
   if msg then return core.invalid(desc, msg) end
   local apt = require "prop.apt"
   local cron = require "prop.cron"
   local file = require "prop.file"
   local name = o.name or default_name(r)
   local bin = "/usr/local/sbin/" .. name
   local passfile = o.passphrase and "/etc/borg/" .. name .. ".passphrase" or nil
   local init_claims = is_local(r) and { claim.file_generated(r, "borg init (borg.backup)") } or nil
   local up = {
      apt.installed { "borgbackup", "cron" },
      -- A job nothing runs is no backup: cron's daemon runs too.
      require("prop.service").running "cron",
   }
   if o.keyfile then
      -- borg finds a key file in its keys directory by the repository's
      -- id, whatever the file's name.
      for _, d in ipairs({ "/root/.config", "/root/.config/borg", KEYS_DIR }) do
         up[#up + 1] = file.directory(d, { mode = "0700", owner = "root", group = "root" })
      end
      up[#up + 1] = file.has_content(KEYS_DIR .. "/" .. name, o.keyfile,
                                     { mode = "0600", owner = "root", group = "root" })
   end
   if passfile then
      up[#up + 1] = file.directory("/etc/borg", { mode = "0700", owner = "root", group = "root" })
      up[#up + 1] = file.has_content(passfile, o.passphrase,
                                     { mode = "0600", owner = "root", group = "root" })
   end
   up[#up + 1] = file.has_content(bin, script(name, dlist, r, o, passfile),
                                  { mode = "0700", owner = "root", group = "root" })
   up[#up + 1] = core.leaf{ desc = "borg repository " .. r, targets = "DebianLike",
                            impl = impl.init, args = { name = name, repo = r, passfile = passfile,
                                                       env = o.env, keyfile = o.keyfile ~= nil },
                            claims = init_claims, norevert = "the repository is never removed" }
   up[#up + 1] = cron.job(name, o.when or "@daily", { bin })
   local down = { file.absent("/etc/cron.d/" .. name), file.absent(bin) }
   if passfile then down[#down + 1] = file.absent(passfile) end
   if o.keyfile then down[#down + 1] = file.absent(KEYS_DIR .. "/" .. name) end
   return core.pair(core.props(up):describe(fmt("%s (%s)", desc, name)),
                    core.props(down):describe(fmt("borg backup %s removed", name)))
end

return args.strict_module(borg, "borg")
