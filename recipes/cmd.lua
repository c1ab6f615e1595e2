-- prop.cmd: running a command.

local core = require "prop.core"
local args = require "prop.args"
local R = require "prop.runtime"

local cmd = {}

local impl = { run = {} }

-- Run time: creates and unless only look (unless runs even in a dry run,
-- through sys:query, so it must not change anything); the command itself
-- is a change.
function impl.run.ensure(sys, a)
   if a.creates and sys:exists(a.creates) then return "ok" end
   if a.unless then
      local r = sys:query(a.unless)
      if r.code == 0 then return "ok" end
      if r.code == 127 or r.code == -1 then R.command_failed("cmd.run: unless", a.unless, r) end
   end
   local r = sys:run(a.argv, R.any)
   if r.code ~= 0 then R.command_failed("cmd.run", a.argv, r) end
   local out = R.tail(r.stdout, 10)
   if out ~= "" then sys:note(out) end
   return "changed"
end

--[[ cmd.run(argv [, { creates=, unless= }])
  UnixLike, not revertable.  Claims nothing.
  Runs argv (a list: no shell is involved) every time, unless creates
  names a path that already exists, or unless is a command (an argv) that
  succeeds.  Reports a change when it ran.
  Run time: ok, without running argv, when creates exists or when unless
  exits 0 (unless only looks: it runs in a dry run too).  Else argv runs
  and the result is changed; a non-zero exit is a failure showing its
  stderr.  Without creates or unless, a command runs, and is a change,
  on every run: that is what a bare command means.
  A string is refused: prop never builds a shell command from a string;
  write { "sh", "-c", "..." } to ask for a shell explicitly.
  Example:
    cmd.run({ "newaliases" }, { unless = { "test", "/etc/aliases.db", "-nt", "/etc/aliases" } })
]]
function cmd.run(argv, opts)
   local desc = "run " .. (type(argv) == "table" and type(argv[1]) == "string" and argv[1] or "?")
   local err, a = args.argv(argv, "argv")
   local oerr, o = args.options(opts, { creates = args.abs_path, unless = args.argv }, "cmd.run")
   local msg = args.join("cmd.run", err, oerr)
   if msg then return core.invalid(desc, msg) end
   desc = "run " .. args.shell_join(a)
   return core.leaf{ desc = desc, impl = impl.run,
                     args = { argv = a, creates = o.creates, unless = o.unless },
                     norevert = "cmd.run has no revert action: prop cannot know how to undo what a command did" }
end

return args.strict_module(cmd, "cmd")
