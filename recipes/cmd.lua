-- prop.cmd: running a command.

local core = require "prop.core"
local args = require "prop.args"

local cmd = {}

local impl = { run = {} }

--[[ cmd.run(argv [, { creates=, unless= }])
  UnixLike, not revertable.  Claims nothing.
  Runs argv (a list: no shell is involved) every time, unless creates
  names a path that already exists, or unless is a command (an argv) that
  succeeds.  Reports a change when it ran.
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
   return core.leaf(desc, nil, impl.run, { argv = a, creates = o.creates, unless = o.unless },
                    nil, {
      norevert = "cmd.run has no revert action: prop cannot know how to undo what a command did",
   })
end

return args.strict_module(cmd, "cmd")
