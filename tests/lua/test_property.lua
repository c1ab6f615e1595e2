-- prop.property: property { ... } written in Lua, and p:period(every).
local T = require "check"
local P = prop_module "property"
local property = P.property

local function apply() end

-- a valid property: its type and claims
local p = property { desc = "app", targets = "DebianLike", apply = apply, ports = { 8080 },
                     claims = { files = { "/etc/app.conf" }, lines = { ["/etc/x"] = "a=1" },
                                packages = { "app" }, services = { "app@1" }, users = { "app" },
                                groups = { "app" } },
                     info = { ["app.dir"] = "/srv/app", ["app.n"] = 3, ["app.list"] = { "a", true } } }
T.eq({ p.desc, p.kind, p.revertable }, { "app", "property", false }, "a leaf, not revertable")
T.eq(p.ports, { 8080 }, "its ports")
local claims = {}
for _, c in ipairs(p.claims) do claims[#claims + 1] = c.kind .. " " .. c.key .. (c.value and " " .. c.value or "") end
T.eq(claims, { "file.owned /etc/app.conf", "file.line /etc/x a=1", "package.installed app",
               "service.running app@1", "user app", "group app" }, "its claims, in order")
T.eq(p.info["app.n"], { "3" }, "info: a number as a string")
T.eq(p.info["app.list"], { "a", "true" }, "info: a list")
p = property { desc = "both", apply = apply, revert = apply }
T.eq({ p.revertable, revert(p).reverted.desc }, { true, "revert both" }, "with revert: revertable")
p = property { desc = "facts", info = { ["k.v"] = "x" } }
T.eq({ p.kind, p.info["k.v"] }, { "info", { "x" } }, "info only: no apply needed")

-- the mistakes, each a P012 with its message
local function msg(t) return T.invalid(property, t) end
T.eq(msg("x"), "property: expects a table { desc = ..., check = ..., apply = ... }, got a string", "not a table")
T.eq(msg({ apply = apply }), "property: desc must be a non-empty string, got nothing", "no desc")
T.eq(msg({ desc = "d", aply = apply }), 'property: unknown key "aply" (did you mean "apply"?)', "a typo")
T.eq(msg({ desc = "d", apply = "x" }), "property: apply must be a function, got a string", "apply not a function")
T.err(msg({ desc = "d" }), "property: apply is required", "no apply")
T.eq(msg({ desc = "d", apply = apply, ports = 80 }), "property: ports must be a list of port numbers", "ports")
T.eq(msg({ desc = "d", apply = apply, ports = { 80, 70000 } }), "property: port 70000 (entry 2) is outside 1..65535",
     "a port out of range")
T.eq(msg({ desc = "d", apply = apply, claims = "x" }),
     'property: claims must be a table such as { files = { "/etc/app.conf" } }, got string "x"', "claims not a table")
T.eq(msg({ desc = "d", apply = apply, claims = { file = {} } }),
     'property: unknown key "file" for claims (did you mean "files"?)', "claims: a typo")
T.eq(msg({ desc = "d", apply = apply, claims = { files = { "rel" } } }),
     'property: claims.files[1] must be an absolute path (starting with /), got relative path "rel"',
     "claims: a relative path")
T.eq(msg({ desc = "d", apply = apply, claims = { lines = { ["/x"] = "a\nb" } } }),
     'property: claims.lines["/x"] "a\\nb" contains a newline: a line cannot span lines', "claims: a line with a newline")
T.eq(msg({ desc = "d", apply = apply, claims = { services = { ".." } } }),
     'property: claims.services[1] ".." is not a name', "claims: ..")
T.eq(msg({ desc = "d", apply = apply, claims = { users = { "-x" } } }),
     'property: claims.users[1] "-x" is not valid: expected an account name such as "deploy"', "claims: a bad user")
T.eq(msg({ desc = "d", apply = apply, info = { os = "debian" } }),
     'property: info key "os" is prop\'s own: it is set by os.debian(...), os.rhel(...), os.arch(...) or another os.*',
     "info: a reserved key")
T.eq(msg({ desc = "d", apply = apply, info = { ["a..b"] = 1 } }),
     'property: info key "a..b" is not a name: use letters, digits, "_", "-" and dots, such as "backup.dir"',
     "info: a bad key")
T.eq(msg({ desc = "d", apply = apply, info = { k = {} } }), 'property: info["k"] must not be an empty list',
     "info: an empty list")
T.eq(msg({ desc = "d", apply = apply, info = { k = print } }),
     'property: info["k"] must be a string, a number, a boolean or a list of those, got a function',
     "info: a function")
T.err(msg({ desc = "d", apply = apply, targets = "Plan9" }), "Plan9", "targets: unknown")
T.eq(msg({ desc = "d", apply = apply }), nil, "a good one is not invalid")

-- period
p = property { desc = "Backup now", apply = apply }
local d = P.period(p, "daily")
T.eq({ d.desc, d.kind }, { "Backup now (daily)", "describe" }, "period: daily")
T.eq(P.period(p, 90).desc, "Backup now (every 1m 30s)", "period: seconds")
T.eq(P.period(p, 90061).desc, "Backup now (every 1d 1h)", "period: days")
local shown = prop_module("show").property(d)
T.err(shown, "Backup now: time of this run kept", "period: a stamp")
T.err(shown, "claims file.directory /var/lib/prop/period", "period: the stamp's directory claimed")
T.eq(T.invalid(P.period, p, "dayly"),
     'period: "dayly" is not a period: use "daily", "weekly", "monthly" or a number of seconds (did you mean "daily"?)',
     "period: a typo")
T.eq(T.invalid(P.period, p, 0),
     'period: expected "daily", "weekly", "monthly" or a whole number of seconds > 0, got 0', "period: 0")
T.eq(T.invalid(P.period, p, 1.5),
     'period: expected "daily", "weekly", "monthly" or a whole number of seconds > 0, got 1.5', "period: a fraction")

T.done()
