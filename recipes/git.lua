-- prop.git: working copies of git repositories.
--
-- git.cloned keeps a clone of one repository in one directory, at one
-- revision when asked; git.pulled brings a clone up to date with the
-- branch it follows.  What is on the remote is asked with git ls-remote,
-- which changes nothing, so a clone that is already where it should be
-- is ok without a fetch.

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"
local R = require "prop.runtime"

local git = {}

local fmt = string.format

local impl = { cloned = {}, pulled = {} }

-- argv of git acting on a.dir, as a.user when given (runuser, so that
-- the clone's files are the user's), else as root; root trusts the
-- directory whoever owns it (git refuses a repository owned by another
-- user otherwise).
local function git_argv(a, ...)
   local argv
   if a.user then
      argv = { "runuser", "-u", a.user, "--", "git" }
   else
      argv = { "git", "-c", "safe.directory=" .. a.dir }
   end
   local n = select("#", ...)
   local rest = { ... }
   for i = 1, n do argv[#argv + 1] = rest[i] end
   return argv
end

local function in_dir(a, ...)
   return git_argv(a, "-C", a.dir, ...)
end

local function trim(s)
   return (s or ""):match("^%s*(.-)%s*$")
end

-- Output of a looking git command, which must succeed.
local function look(sys, what, argv)
   local r = R.query(sys, what, argv)
   if r.code ~= 0 then R.command_failed(what, argv, r) end
   return trim(r.stdout)
end

-- What dir is: "missing", "empty" (a directory with nothing in it),
-- "repo" or a failure saying why it cannot be a clone.
local function dir_state(sys, what, dir)
   local st = sys:stat(dir)
   if st == nil then return "missing" end
   if st.type ~= "directory" then
      R.fail("%s: %s exists and is a %s, not a directory", what, dir,
             st.type == "other" and "special file" or st.type)
   end
   if sys:stat(dir .. "/.git") then return "repo" end
   local r = R.query(sys, what, { "find", dir, "-mindepth", "1", "-maxdepth", "1", "-print", "-quit" })
   if r.code == 0 and trim(r.stdout) == "" then return "empty" end
   R.fail("%s: %s exists and is not a git repository (no %s/.git); move it away or remove it",
          what, dir, dir)
end

-- The commit of name on the remote (a branch, else a tag, peeled), or nil.
local function remote_commit(sys, what, a, name)
   local argv = git_argv(a, "ls-remote", "--", a.url, "refs/heads/" .. name, "refs/tags/" .. name,
                         "refs/tags/" .. name .. "^{}")
   local r = R.query(sys, what, argv)
   if r.code ~= 0 then R.command_failed(what, argv, r) end
   local found = {}
   for sha, ref in r.stdout:gmatch("(%x+)%s+(%S+)") do found[ref] = sha end
   return found["refs/heads/" .. name] or found["refs/tags/" .. name .. "^{}"]
      or found["refs/tags/" .. name], found["refs/heads/" .. name] ~= nil
end

local function is_sha(rev)
   return #rev >= 7 and #rev <= 40 and rev:find("^%x+$") ~= nil
end

-- Brings dir (a clone of a.url) to a.rev: true when it changed.
local function to_rev(sys, what, a, fresh)
   local head = look(sys, what, in_dir(a, "rev-parse", "HEAD"))
   local want, branch
   if is_sha(a.rev) then
      if head:sub(1, #a.rev) == a.rev:lower() then return false end
   else
      want, branch = remote_commit(sys, what, a, a.rev)
      if want == nil then
         R.fail("%s: %s has no branch or tag %s", what, a.url, a.rev)
      end
      if head == want then return false end
   end
   if not fresh then
      R.run(sys, what, in_dir(a, "fetch", "--quiet", "--tags", "origin"))
   end
   if sys.dry then
      sys:note(fmt("would check out %s (now at %s)", a.rev, head:sub(1, 12)))
      return true
   end
   if branch then
      R.run(sys, what, in_dir(a, "checkout", "--quiet", "-B", a.rev, "origin/" .. a.rev))
   else
      local r = R.query(sys, what, in_dir(a, "rev-parse", "--verify", "--quiet", a.rev .. "^{commit}"))
      if r.code ~= 0 then R.fail("%s: %s has no commit %s", what, a.url, a.rev) end
      R.run(sys, what, in_dir(a, "checkout", "--quiet", "--detach", trim(r.stdout)))
   end
   local now = look(sys, what, in_dir(a, "rev-parse", "HEAD"))
   sys:note(fmt("checked out %s: %s -> %s", a.rev, head:sub(1, 12), now:sub(1, 12)))
   return true
end

function impl.cloned.ensure(sys, a)
   local what = "git.cloned " .. a.dir
   local state = dir_state(sys, what, a.dir)
   if state == "repo" then
      local url = look(sys, what, in_dir(a, "config", "--get", "remote.origin.url"))
      if url ~= a.url then
         R.fail("%s: %s is a clone of %s, not of %s; move it away or remove it", what, a.dir,
                url ~= "" and url or "nothing (it has no origin)", a.url)
      end
      if a.rev == nil then return "ok" end
      return to_rev(sys, what, a, false) and "changed" or "ok"
   end
   if state == "missing" then
      -- Made first, so that a clone as a.user needs no right on the parent.
      local parent = a.dir:match("^(.*)/[^/]+$")
      if parent ~= "" and not sys:exists(parent) then
         R.fail("%s: the parent directory %s does not exist", what, parent)
      end
      sys:mkdir(a.dir, { mode = tonumber("0755", 8), owner = a.user })
   elseif a.user then
      local fix = R.attrs_to_fix(sys:stat(a.dir), { owner = a.user })
      if fix then sys:chattr(a.dir, fix) end
   end
   local argv = git_argv(a, "clone", "--quiet")
   if a.branch then
      argv[#argv + 1] = "--branch"
      argv[#argv + 1] = a.branch
   end
   argv[#argv + 1] = "--"
   argv[#argv + 1] = a.url
   argv[#argv + 1] = a.dir
   if sys.dry then
      sys:note(fmt("would clone %s into %s%s", a.url, a.dir, a.rev and " at " .. a.rev or ""))
      return "changed"
   end
   R.run(sys, what, argv)
   if a.rev then to_rev(sys, what, a, true) end
   return "changed"
end

function impl.pulled.ensure(sys, a)
   local what = "git.pulled " .. a.dir
   if dir_state(sys, what, a.dir) ~= "repo" then
      R.fail("%s: %s is not a clone (it %s); make it with git.cloned first", what, a.dir,
             sys:exists(a.dir) and "is empty" or "does not exist")
   end
   local branch = look(sys, what, in_dir(a, "symbolic-ref", "--quiet", "--short", "HEAD"))
   local merge = R.query(sys, what, in_dir(a, "config", "--get", "branch." .. branch .. ".merge"))
   local remote = R.query(sys, what, in_dir(a, "config", "--get", "branch." .. branch .. ".remote"))
   if merge.code ~= 0 or remote.code ~= 0 then
      R.fail("%s: the branch %s follows no remote branch", what, branch)
   end
   local ref, rname = trim(merge.stdout), trim(remote.stdout)
   local argv = in_dir(a, "ls-remote", "--", rname, ref)
   local r = R.query(sys, what, argv)
   if r.code ~= 0 then R.command_failed(what, argv, r) end
   local want = r.stdout:match("^(%x+)")
   if want == nil then R.fail("%s: the remote %s has no %s", what, rname, ref) end
   local head = look(sys, what, in_dir(a, "rev-parse", "HEAD"))
   if head == want then return "ok" end
   -- A HEAD that already contains the remote's commit is up to date.
   local anc = R.query(sys, what, in_dir(a, "merge-base", "--is-ancestor", want, "HEAD"))
   if anc.code == 0 then return "ok" end
   if sys.dry then
      sys:note(fmt("would pull %s: %s -> %s", branch, head:sub(1, 12), want:sub(1, 12)))
      return "changed"
   end
   R.run(sys, what, in_dir(a, "pull", "--quiet", "--ff-only"))
   sys:note(fmt("pulled %s: %s -> %s", branch, head:sub(1, 12),
                look(sys, what, in_dir(a, "rev-parse", "HEAD")):sub(1, 12)))
   return "changed"
end

-- A repository address: a URL, scp-like "host:path", or a path; never
-- an option.
local function check_url(v, what)
   local err = args.nonempty_string(v, what)
   if err then return err end
   if v:find("^%-") or v:find("[%s%c]") then
      return fmt("%s %s must not start with \"-\" nor contain blanks or control characters",
                 what, args.show(v))
   end
   return nil, v
end

-- A branch, a tag or a commit: a ref name git accepts (no "..", no
-- blanks, not starting with "-").
local function check_ref(v, what)
   local err = args.matching(v, what, "[%w_][%w_./+-]*",
                             'a branch, a tag or a commit such as "main", "v1.2" or "3f2a9c1"')
   if err then return err end
   if v:find("..", 1, true) or v:find("/$") or v:find("%.lock$") or v:find("//", 1, true) then
      return fmt("%s %s is not a valid git ref name", what, args.show(v))
   end
   return nil, v
end

local function check_user(v, what)
   return args.matching(v, what, "[a-z_][a-z0-9_-]*%$?", 'a user name such as "deploy"')
end

--[[ git.cloned(url, dir [, { rev=, branch=, user= }])
  UnixLike, not revertable (removing a clone would lose what was done in
  it).
  Claims: file.directory dir, and file.generated dir/.git = "git clone
  URL" (two different repositories in one directory is P007); with user,
  file.owner dir = "USER:".
  Run time: a missing dir (or an empty one) is cloned into (git clone,
  --branch BRANCH when given; the directory made first, owned by user).
  A dir that is a clone of another URL, is not a git repository, or is
  not a directory, fails and is left alone.  With rev (a branch, a tag or
  a commit), the clone's HEAD is compared with rev (for a branch or a tag
  its commit on the remote, asked with git ls-remote); when it differs,
  git fetch then git checkout (a branch: -B BRANCH origin/BRANCH; a tag or
  a commit: detached).  Without rev an existing clone is ok as it is (see
  git.pulled).  Git runs as user when given (runuser), else as root.
  Example:
    git.cloned("https://git.example.com/site.git", "/srv/site",
               { rev = "v2.3", user = "www-data" })
]]
function git.cloned(url, dir, opts)
   local desc = fmt("git clone of %s in %s", type(url) == "string" and url or "?",
                    type(dir) == "string" and dir or "?")
   local uerr = check_url(url, "url")
   local derr = args.abs_path(dir, "dir")
   if not derr and dir == "/" then derr = "dir must not be /" end
   local oerr, o = args.options(opts, { rev = check_ref, branch = check_ref, user = check_user },
                                "git.cloned")
   local msg = args.join("git.cloned", uerr, derr, oerr)
   if msg then return core.invalid(desc, msg) end
   dir = dir:gsub("/+$", "")
   if o.rev then desc = desc .. " at " .. o.rev end
   local claims = { claim.file_directory(dir), claim.file_generated(dir .. "/.git", "git clone " .. url) }
   if o.user then claims[#claims + 1] = claim.file_owner(dir, o.user .. ":") end
   return core.leaf{ desc = desc, impl = impl.cloned,
                     args = { url = url, dir = dir, rev = o.rev, branch = o.branch, user = o.user },
                     claims = claims,
                     norevert = "git.cloned: removing a clone would lose what was done in it" }
end

--[[ git.pulled(dir [, { user= }])
  UnixLike, not revertable.
  Claims: file.directory dir.
  Run time: dir must be a clone whose checked-out branch follows a remote
  branch.  Its commit on the remote (git ls-remote) is compared with
  HEAD: the same, or already contained in HEAD, is ok; else git pull
  --ff-only (a branch that has diverged fails with git's message).
  Example:
    git.cloned("https://git.example.com/site.git", "/srv/site"),
    git.pulled("/srv/site"),
]]
function git.pulled(dir, opts)
   local desc = "git pull in " .. (type(dir) == "string" and dir or "?")
   local derr = args.abs_path(dir, "dir")
   local oerr, o = args.options(opts, { user = check_user }, "git.pulled")
   local msg = args.join("git.pulled", derr, oerr)
   if msg then return core.invalid(desc, msg) end
   dir = dir:gsub("/+$", "")
   return core.leaf{ desc = desc, impl = impl.pulled, args = { dir = dir, user = o.user },
                     claims = { claim.file_directory(dir) },
                     norevert = "git.pulled: a pull has nothing to revert" }
end

return args.strict_module(git, "git")
