-- prop.file's options when the site is read: regex = (compiled by libc's
-- regcomp through core.regex_compile), warning W107 for a Lua pattern
-- written as a regular expression, file.touched, recurse =, replace =
-- and validate =; each bad argument a clear message.
local T = require "check"
local F = prop_module "file"
local core = prop_module "core"

-- core.regex_compile: POSIX extended, matched anywhere in the line.
local re = core.regex_compile("^#?PermitRootLogin (yes|no)")
T.ok(re, "regex_compile: an expression")
T.eq(re:match("PermitRootLogin yes"), true, "regex: alternation")
T.eq(re:match("#PermitRootLogin no"), true, "regex: optional #")
T.eq(re:match("PermitRootLogin prohibit-password"), false, "regex: no match")
T.eq(core.regex_compile("[[:space:]]Port[[:space:]]+[0-9]{2}"):match(" Port 22"), true,
     "regex: classes and counts")
T.eq(core.regex_compile("a\\.b"):match("axb"), false, "regex: an escaped dot")
local bad, why = core.regex_compile("(yes|no")
T.eq(bad, nil, "regex_compile: unbalanced")
T.ok(type(why) == "string" and why ~= "", "regex_compile: regerror's text")
T.eq({ core.regex_compile("a\0b") }, { nil, "it contains a NUL byte" }, "regex_compile: NUL")

-- Argument errors, one message each.
local P = "/etc/ssh/sshd_config"
T.err(T.invalid(F.line, P, "PermitRootLogin no", { regex = "(yes|no" }),
      'file.line: regex "(yes|no" is not a POSIX extended regular expression: ', "bad regex")
T.err(T.invalid(F.line, P, "PermitRootLogin no", { regex = "" }), "file.line: regex",
      "empty regex")
T.err(T.invalid(F.line, P, "PermitRootLogin no", { regex = 3 }), "file.line: regex",
      "regex not a string")
T.err(T.invalid(F.line, P, "x", { regex = "^x", match = "^x" }),
      "give one of match (a Lua pattern), regex (a POSIX extended regular expression) and "
         .. "match_plain (a plain string), not two", "regex and match")
T.err(T.invalid(F.line, P, "x", { regex = "^x", match = "^x", match_plain = "x" }),
      "not all three", "all three")
T.err(T.invalid(F.line_absent, P, {}),
      "give the line to remove, or what finds the lines to remove", "line_absent: nothing")
T.err(T.invalid(F.line_absent, P, { regex = "^(a" }), "is not a POSIX extended regular expression",
      "line_absent: bad regex")
T.eq(T.invalid(F.line_absent, P, { regex = "^#?PermitRootLogin " }), nil,
     "line_absent: a regex without a line")
T.eq(T.invalid(F.line, P, "PermitRootLogin no", { regex = "^#?PermitRootLogin (yes|no)" }), nil,
     "line: a good regex")

T.err(T.invalid(F.has_content, "/etc/a", "x", { replace = "no" }), "replace", "replace: a boolean")
T.err(T.invalid(F.has_content, "/etc/a", "x", { force = false }), 'unknown key "force"',
      "has_content: an unknown option is an error")
T.err(T.invalid(F.has_content, "/etc/a", "x", { validate = { "check" } }),
      'must hold "%s", which stands for the file to check', "has_content: validate without %s")
T.err(T.invalid(F.has_content, "/etc/a", "x", { validate = "sh -n %s" }), "validate",
      "has_content: validate as a string")
T.eq(T.invalid(F.has_content, "/etc/a", "x", { validate = { "sh", "-n", "%s" }, replace = false }),
     nil, "has_content: validate and replace")

T.err(T.invalid(F.touched, "rel/path"), "file.touched: path", "touched: relative path")
T.err(T.invalid(F.touched, "/var/log/a", { mode = "999" }), "file.touched: mode", "touched: mode")
T.err(T.invalid(F.touched, "/var/log/a", { content = "" }), 'unknown key "content"',
      "touched: no content option")
T.eq(T.invalid(F.touched, "/var/log/a", { owner = "www-data", mode = "0640" }), nil,
     "touched: good")

T.err(T.invalid(F.mode, "/srv", "0640", { recurse = 1 }), "recurse", "mode: recurse a boolean")
T.err(T.invalid(F.owner, "/srv", "www-data", { recurse = "yes" }), "recurse",
      "owner: recurse a boolean")
T.err(T.invalid(F.directory, "/srv", { recurse = true }),
      "recurse = true gives mode, owner or group to what is below: give one of them",
      "directory: recurse alone")
T.eq(T.invalid(F.directory, "/srv", { owner = "www-data", recurse = true }), nil,
     "directory: recurse with an owner")

-- W107: a Lua pattern written as a regular expression, said with the
-- option and what in it Lua patterns lack; Lua patterns are not flagged.
local function warned(f, ...)
   local orig, got = core.warn, {}
   core.warn = function(code, m) got[#got + 1] = code .. " " .. m end
   local ok, e = pcall(f, ...)
   core.warn = orig
   if not ok then error(e, 0) end
   return got
end
local w = warned(F.line, P, "PermitRootLogin no", { match = "^#?PermitRootLogin (yes|no)" })
T.eq(#w, 1, "W107: the sshd trap")
T.err(w[1], 'W107 file.line: match "^#?PermitRootLogin (yes|no)" is a Lua pattern, and Lua '
         .. 'patterns have no "|" (alternation)', "W107: what and why")
T.err(w[1], 'give the expression as regex = "^#?PermitRootLogin (yes|no)" instead',
      "W107: says regex =")
for _, p in ipairs({ "^\\s*Port", "^Port \\d+", "\\bfoo", "^(?:a)", "^a\\.b", "[[:space:]]x",
                     "^x{2}" }) do
   T.eq(#warned(F.line, P, "x", { match = p }), 1, "W107: " .. p)
end
T.eq(#warned(F.line_absent, P, { match = "a|b" }), 1, "W107: line_absent")
T.eq(#warned(F.line, P, "x", { after = "^(Port|Listen)" }), 1, "W107: after")
for _, p in ipairs({ "^#?PermitRootLogin%s", "^a%|b", "^%s*Port%s+%d+", "^[%w_]+=", ".*" }) do
   T.eq(#warned(F.line, P, "x", { match = p }), 0, "no W107: " .. p)
end
T.eq(#warned(F.line, P, "x", { regex = "^(a|b)\\s" }), 0, "no W107 for regex =")

T.done()
